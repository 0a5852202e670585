import type { Knex } from 'knex';

/**
 * A failed attempt's `error` is a class (the contract's WEBHOOK_ATTEMPT_ERRORS), never the raw
 * text of what went wrong: the text told a tenant what listens where. The texts stored so far
 * become their class, and the column takes nothing else from now on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    update notifications.attempts set error = case
      when error = 'Connection refused.' then 'connection_refused'
      when error like 'No answer within %' then 'timeout'
      when error like 'The endpoint answered HTTP %' then 'http_status'
      when error like 'The signing secret could not be read%' then 'not_sent'
      when error ~ '^Network error[: ]+(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|INVALID_CA|EPROTO)' then 'tls_error'
      else 'connection_error'
    end
    where error is not null
      and error not in ('connection_refused', 'timeout', 'tls_error', 'http_status', 'connection_error', 'not_sent')`);
  await knex.raw(`
    alter table notifications.attempts add constraint attempts_error_class
      check (error in ('connection_refused', 'timeout', 'tls_error', 'http_status', 'connection_error', 'not_sent'))`);
}

export async function down(knex: Knex): Promise<void> {
  // The texts are not restored: a class is a valid text for the old column.
  await knex.raw('alter table notifications.attempts drop constraint if exists attempts_error_class');
}
