import type { Config } from '../../config.js';
import { type CliIo, cliConfig, writeLine } from '../context.js';

const HIDDEN = '(set, hidden)';
/** Field names ending like a secret (metricsToken…), wherever they appear; not tokenHeader (a header name). */
const SECRET_FIELD = /(token|secret|password|key)$/i;

/**
 * The configuration with every secret replaced: keys show only their id (a hash prefix that
 * identifies a key without revealing it), other secrets only whether they are set.
 */
export function maskedConfig(config: Config): unknown {
  const mask = (value: unknown, name: string): unknown => {
    if (name === 'secretKeys' && Array.isArray(value)) {
      return (value as Config['secretKeys']).map((k, i) => ({
        role: i === 0 ? 'SECRET_KEY (current)' : 'SECRET_KEY_PREVIOUS',
        id: k.id,
        key: HIDDEN,
      }));
    }
    if (SECRET_FIELD.test(name) && typeof value === 'string') return HIDDEN;
    if (name === 'databaseUrl' && typeof value === 'string') return withoutPassword(value);
    if (Buffer.isBuffer(value)) return HIDDEN;
    if (Array.isArray(value)) return value.map((v) => mask(v, ''));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
    }
    return value;
  };
  return mask(config, '');
}

/** A connection URL with its password replaced (user, host, port and database stay readable). */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = 'hidden';
    return parsed.toString();
  } catch {
    return HIDDEN;
  }
}

export function configCommand(io: CliIo): void {
  const config = cliConfig(io);
  writeLine(io.stdout, JSON.stringify(maskedConfig(config), null, 2));
}
