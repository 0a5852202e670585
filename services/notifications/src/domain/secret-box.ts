import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets at rest: AES-256-GCM under the service's key. A sealed secret is
 * `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id (the first 8 bytes of the
 * key's SHA-256, hex) tells at boot which key a row needs without decrypting anything; the
 * endpoint id is the additional data, so a sealed secret copied onto another row fails to open.
 */
export interface SecretBox {
  /** The id of the key this box seals with. */
  readonly keyId: string;
  /** The ids of the previous keys it still opens with (WEBHOOK_SECRET_KEY_PREVIOUS), never seals with. */
  readonly previousKeyIds: readonly string[];
  seal(secret: string, endpointId: string): string;
  /**
   * The plain secret; throws when the value was sealed with a key this box does not hold, for
   * another row, or altered. Opening with a previous key keeps deliveries going while another
   * instance, still on the old key, seals new endpoints during a rolling rotation.
   */
  open(sealed: string, endpointId: string): string;
}

const VERSION = 'v1';
const IV_BYTES = 12;
export const SECRET_KEY_BYTES = 32;

export const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** The key id a sealed secret names, or undefined when it is not a sealed secret at all. */
export function keyIdOfSealed(sealed: string): string | undefined {
  const parts = sealed.split('.');
  return parts.length === 5 && parts[0] === VERSION ? parts[1] : undefined;
}

export class SecretUnreadableError extends Error {
  override readonly name = 'SecretUnreadableError';
}

export function createSecretBox(key: Buffer, previous: readonly Buffer[] = []): SecretBox {
  for (const candidate of [key, ...previous]) {
    if (candidate.length !== SECRET_KEY_BYTES) throw new TypeError(`the webhook secret key must be ${SECRET_KEY_BYTES} bytes`);
  }
  const keyId = keyIdOf(key);
  // Keyed by id; the current key wins should it also be listed as a previous one.
  const keys = new Map<string, Buffer>([...previous.map((old): [string, Buffer] => [keyIdOf(old), old]), [keyId, key]]);
  return {
    keyId,
    previousKeyIds: [...keys.keys()].filter((id) => id !== keyId),
    seal(secret, endpointId) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(endpointId, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [VERSION, keyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed, endpointId) {
      const [version, sealedKeyId, iv, ciphertext, tag] = sealed.split('.');
      if (version !== VERSION || iv === undefined || ciphertext === undefined || tag === undefined) {
        throw new SecretUnreadableError('not a sealed webhook secret');
      }
      const sealedWith = sealedKeyId === undefined ? undefined : keys.get(sealedKeyId);
      if (sealedWith === undefined) throw new SecretUnreadableError(`sealed with key ${sealedKeyId}, not the configured key ${keyId}`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealedWith, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(endpointId, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretUnreadableError('the sealed secret failed authentication');
      }
    },
  };
}
