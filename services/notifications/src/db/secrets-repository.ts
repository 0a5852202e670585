import type { Knex } from 'knex';

const TABLE = 'notifications.endpoints';

/**
 * Seals the secrets of endpoints written before secrets were encrypted, and clears the plain
 * copy in the same update. Safe to run on every start and from several instances at once: a row
 * another instance sealed first no longer matches `secret is not null`.
 */
export async function sealLegacySecrets(knex: Knex, seal: (secret: string, endpointId: string) => string): Promise<number> {
  const rows = (await knex(TABLE).select('id', 'secret').whereNotNull('secret')) as { id: string; secret: string }[];
  let sealed = 0;
  for (const row of rows) {
    sealed += await knex(TABLE)
      .where({ id: row.id })
      .whereNotNull('secret')
      .update({ secret_sealed: seal(row.secret, row.id), secret: null });
  }
  return sealed;
}

/** How many live (not deleted) endpoints have secrets sealed with each key id. */
export async function sealedSecretKeyIds(knex: Knex): Promise<{ keyId: string; endpoints: number }[]> {
  const rows = await knex.raw<{ rows: { key_id: string; endpoints: string }[] }>(
    `select split_part(secret_sealed, '.', 2) as key_id, count(*) as endpoints
     from notifications.endpoints
     where deleted_at is null and secret_sealed is not null
     group by 1`,
  );
  return rows.rows.map((row) => ({ keyId: row.key_id, endpoints: Number(row.endpoints) }));
}

/** Every endpoint, deleted ones too, whose secret is sealed with one of `keyIds`. */
export async function secretsSealedWith(knex: Knex, keyIds: readonly string[]): Promise<{ id: string; sealed: string }[]> {
  if (keyIds.length === 0) return [];
  const rows = await knex(TABLE)
    .select<{ id: string; secret_sealed: string }[]>('id', 'secret_sealed')
    .whereNotNull('secret_sealed')
    .whereRaw(`split_part(secret_sealed, '.', 2) in (${keyIds.map(() => '?').join(', ')})`, [...keyIds]);
  return rows.map((row) => ({ id: row.id, sealed: row.secret_sealed }));
}

/**
 * Replaces one sealed secret if it is still the value read (compare and set): an instance
 * re-sealing at the same moment, or an endpoint deleted meanwhile, is left as it is.
 */
export async function replaceSealedSecret(knex: Knex, id: string, from: string, to: string): Promise<boolean> {
  return (await knex(TABLE).where({ id, secret_sealed: from }).update({ secret_sealed: to })) > 0;
}
