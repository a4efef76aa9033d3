import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** How a sealed secret starts in the database: the algorithm and the format version. */
export const SEALED = 'aes256gcm:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `SECRETS_KEY` as 32 bytes: 64 hex digits, or base64 / base64url of 32 bytes. Null otherwise. */
export function decodeSecretsKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) return Buffer.from(value, 'base64');
  return null;
}

export const isSealed = (stored: string) => stored.startsWith(SEALED);

/**
 * Webhook signing secrets at rest (DESIGN.md §9): AES-256-GCM with a fresh 96-bit nonce per seal,
 * stored as `aes256gcm:v1:` + base64(nonce ‖ tag ‖ ciphertext). A wrong key or a changed byte fails
 * to open instead of giving a wrong secret.
 */
export class SecretBox {
  /** Names the key that seals (never the key itself): the rows it sealed carry it (secrets_key_id). */
  readonly keyId: string;

  /** `previous`: SECRETS_KEY_PREVIOUS during a rotation, which opens but never seals. */
  constructor(
    private readonly key: Buffer,
    private readonly previous?: Buffer,
  ) {
    if (key.length !== 32 || (previous && previous.length !== 32))
      throw new Error('SECRETS_KEY must be 32 bytes');
    this.keyId = createHash('sha256')
      .update('community-secrets-key\n')
      .update(key)
      .digest('hex')
      .slice(0, 16);
  }

  seal(secret: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /**
   * The secret a stored value holds. A value written before secrets were sealed (`whsec_…`) is
   * returned as it is: the service seals those at start, and one may still arrive from a replica of
   * the previous version during a rolling upgrade.
   */
  open(stored: string): string {
    return this.opened(stored).secret;
  }

  /** The secret, and whether the current key sealed it (false: the previous key, or not sealed). */
  opened(stored: string): { secret: string; current: boolean } {
    if (!isSealed(stored)) {
      if (stored.startsWith('whsec_')) return { secret: stored, current: false };
      throw new Error('not a sealed webhook secret');
    }
    try {
      return { secret: this.openWith(this.key, stored), current: true };
    } catch (err) {
      if (!this.previous) throw err;
      return { secret: this.openWith(this.previous, stored), current: false };
    }
  }

  private openWith(key: Buffer, stored: string): string {
    const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }
}

/**
 * The secrets that sign a delivery to this endpoint, opened: the current one, and during a rotation
 * the previous one beside it for its 24 hours.
 */
export function signingSecrets(
  box: SecretBox,
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
): string[] {
  const secrets = [box.open(endpoint.secret)];
  if (
    endpoint.previousSecret &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt > new Date()
  )
    secrets.push(box.open(endpoint.previousSecret));
  return secrets;
}
