import { reencryptCredentials } from '../../accounts/credentials.js';
import { purgeExpired } from '../../housekeeping/index.js';
import { SecretBox } from '../../security/secrets.js';
import { CliError, type CliIo, withDatabase, writeLine } from '../context.js';

/** The same purge the server runs every 15 minutes (audit rows past AUDIT_RETENTION_DAYS included), on demand. */
export async function purgeCommand(io: CliIo): Promise<void> {
  await withDatabase(io, async (db, config) => {
    const counts = await purgeExpired(db, Date.now(), { auditRetentionDays: config.auditRetentionDays });
    for (const [what, n] of Object.entries(counts)) writeLine(io.stdout, `${what}: ${n}`);
  });
}

/**
 * Key rotation, second half: the server already runs with SECRET_KEY = new key and
 * SECRET_KEY_PREVIOUS = old key (both open envelopes); this re-seals every credential under the new
 * key so the old one can then be dropped.
 */
export async function rotateKeyCommand(io: CliIo): Promise<void> {
  if (!io.env.SECRET_KEY) {
    throw new CliError(
      'rotate-key needs SECRET_KEY set to the new key and SECRET_KEY_PREVIOUS to the old one',
    );
  }
  await withDatabase(io, async (db, config) => {
    const secrets = new SecretBox(config.secretKeys);
    const result = await reencryptCredentials(db, secrets);
    writeLine(io.stdout, `re-encrypted: ${result.reencrypted}`);
    writeLine(io.stdout, `already current: ${result.alreadyCurrent}`);
    writeLine(io.stdout, `failed: ${result.failed}`);
    if (result.failed > 0) {
      throw new CliError(
        `${result.failed} credential${result.failed === 1 ? '' : 's'} could not be opened with SECRET_KEY or SECRET_KEY_PREVIOUS (wrong key?); they were left as they are`,
      );
    }
    if (result.reencrypted + result.alreadyCurrent > 0 || io.env.SECRET_KEY_PREVIOUS) {
      writeLine(
        io.stdout,
        'every credential is sealed with SECRET_KEY; SECRET_KEY_PREVIOUS can now be removed',
      );
    }
  });
}
