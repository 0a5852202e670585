import { randomBytes } from 'node:crypto';

/**
 * A Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes (192 bits), the
 * form the `standardwebhooks` libraries accept as they are.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
