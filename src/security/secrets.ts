import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretKey } from '../config.js';

/**
 * Versioned AES-256-GCM envelope for secrets at rest (upstream API tokens):
 * `v1.<key id>.<iv b64url>.<ciphertext b64url>.<tag b64url>`.
 * The key id lets the previous key open old envelopes after a rotation until they are re-sealed.
 * `context` (e.g. the workspace id) is bound as additional authenticated data, so an envelope copied
 * to another row does not open there.
 */
const FORMAT = 'v1';
const IV_BYTES = 12; // NIST SP 800-38D §8.2: 96-bit IVs for GCM

export class SecretBox {
  private readonly current: SecretKey;
  private readonly byId: Map<string, Buffer>;

  constructor(keys: SecretKey[]) {
    const [current] = keys;
    if (!current) throw new Error('SecretBox needs at least one key');
    this.current = current;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, this.current.id, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (Buffer.isBuffer(part) ? part.toString('base64url') : String(part)))
      .join('.');
  }

  open(envelope: string, context: string): string {
    const [format, id, iv, ciphertext, tag] = envelope.split('.');
    if (format !== FORMAT || !id || !iv || ciphertext === undefined || !tag) {
      throw new Error('not a sealed secret');
    }
    const key = this.byId.get(id);
    if (!key)
      throw new Error(`sealed with key ${id}, which is not configured (set it as SECRET_KEY_PREVIOUS)`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  /** Id of the key an envelope was sealed with. */
  static keyIdOf(envelope: string): string {
    return envelope.split('.')[1] ?? '';
  }
}
