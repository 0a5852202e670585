import { ConfigError, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { replaceSealedSecret, sealedSecretKeyIds, sealLegacySecrets, secretsSealedWith } from '../db/secrets-repository.ts';
import type { SecretBox } from '../domain/secret-box.ts';

/**
 * At start: seal any secret still stored plain (rows from before encryption), make sure every
 * endpoint's secret opens with a key this instance holds, then re-seal what a previous key
 * (WEBHOOK_SECRET_KEY_PREVIOUS) sealed with the current one, so the old key can be dropped. A
 * key the data needs but the configuration lacks (a wrong WEBHOOK_SECRET_KEY, a forgotten
 * previous key, an embedded DATA_DIR whose key file was lost) stops the service here, with the
 * remedy, rather than failing every delivery later; nothing is re-sealed in that case.
 */
export async function prepareSealedSecrets(knex: Knex, secrets: SecretBox, logger: Logger): Promise<void> {
  const sealed = await sealLegacySecrets(knex, (secret, endpointId) => secrets.seal(secret, endpointId));
  if (sealed > 0) logger.info({ endpoints: sealed }, 'sealed webhook signing secrets stored before encryption at rest');
  const held = new Set([secrets.keyId, ...secrets.previousKeyIds]);
  const foreign = (await sealedSecretKeyIds(knex)).filter((row) => !held.has(row.keyId));
  if (foreign.length > 0) {
    const list = foreign.map((row) => `${row.endpoints} endpoint(s) sealed with key ${row.keyId}`).join(', ');
    throw new ConfigError(
      `Webhook signing secrets do not open with WEBHOOK_SECRET_KEY (key ${secrets.keyId}) or WEBHOOK_SECRET_KEY_PREVIOUS: ${list}. ` +
        'Set WEBHOOK_SECRET_KEY to the key they were sealed with, or add that key to WEBHOOK_SECRET_KEY_PREVIOUS ' +
        '(embedded: restore DATA_DIR/webhook-secret.key).',
    );
  }
  await resealPrevious(knex, secrets, logger);
}

async function resealPrevious(knex: Knex, secrets: SecretBox, logger: Logger): Promise<void> {
  let resealed = 0;
  const unreadable: string[] = [];
  for (const row of await secretsSealedWith(knex, secrets.previousKeyIds)) {
    let plain: string;
    try {
      plain = secrets.open(row.sealed, row.id);
    } catch {
      // An altered row fails its deliveries either way; one bad row must not keep every endpoint down.
      unreadable.push(row.id);
      continue;
    }
    if (await replaceSealedSecret(knex, row.id, row.sealed, secrets.seal(plain, row.id))) resealed += 1;
  }
  if (resealed > 0) logger.info({ endpoints: resealed, key_id: secrets.keyId }, 're-sealed webhook signing secrets with the current WEBHOOK_SECRET_KEY');
  if (unreadable.length > 0)
    logger.error({ endpoint_ids: unreadable }, 'webhook signing secrets sealed with a previous key failed authentication; left as they are');
}
