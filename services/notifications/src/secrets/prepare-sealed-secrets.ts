import { ConfigError, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { sealedSecretKeyIds, sealLegacySecrets } from '../db/secrets-repository.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * At start: seal any secret still stored plain (rows from before encryption), then make sure
 * every endpoint's secret opens with the configured key. A key that does not match the data
 * (a wrong WEBHOOK_SECRET_KEY, or an embedded DATA_DIR whose key file was lost) stops the
 * service here, with the remedy, rather than failing every delivery later.
 */
export async function prepareSealedSecrets(knex: Knex, secrets: SecretBox, logger: Logger): Promise<void> {
  const sealed = await sealLegacySecrets(knex, (secret, endpointId) => secrets.seal(secret, endpointId));
  if (sealed > 0) logger.info({ endpoints: sealed }, 'sealed webhook signing secrets stored before encryption at rest');
  const foreign = (await sealedSecretKeyIds(knex)).filter((row) => row.keyId !== secrets.keyId);
  if (foreign.length === 0) return;
  const list = foreign.map((row) => `${row.endpoints} endpoint(s) sealed with key ${row.keyId}`).join(', ');
  throw new ConfigError(
    `Webhook signing secrets do not open with WEBHOOK_SECRET_KEY (key ${secrets.keyId}): ${list}. ` +
      'Set WEBHOOK_SECRET_KEY to the key they were sealed with (embedded: restore DATA_DIR/webhook-secret.key).',
  );
}
