import type { ErrorCode } from './catalogue.ts';

/**
 * What to do about each error code (Markdown), for the page its `link` opens and the reference.
 * The catalogue says what the code means; this says how a client gets past it and whether a retry helps.
 */
export const ERROR_GUIDES: Record<ErrorCode, string> = {
  missing_parameter: 'Send the parameter that `param` names. Fix the request; sending it again unchanged fails the same way.',
  invalid_parameter:
    'Correct the parameter that `param` names (the message says what is expected). Unknown parameters are refused too, ' +
    'so check the spelling. A malformed or foreign `cursor` is reported here: restart the list without it.',
  unsupported_version: 'Send `Service-Version: 2026-09-01`, or no `Service-Version` at all to use the version pinned to your account.',
  idempotency_key_required:
    'Add an `Idempotency-Key` header (8 to 128 characters, e.g. a UUID) to every POST, PATCH and DELETE, and reuse the same key ' +
    'when you retry that request. The SDK does this for you.',
  body_not_json: 'Send a JSON object as the body with `Content-Type: application/json`.',
  request_timeout:
    'Send the whole request at once: the headers within 10 s and the body within 10 s of them (by default). A retry with the same ' +
    '`Idempotency-Key` is safe; a body this slow is usually a stalled connection or proxy.',
  method_not_allowed: 'Use one of the methods the `Allow` header lists. Sending it again with this method fails the same way.',
  key_missing: 'Send your API key as `Authorization: Bearer sk_test_...` (sandbox) or `Bearer sk_live_...` (live).',
  key_invalid: 'Check that the whole key was copied. Test keys start with `sk_test_`, live keys with `sk_live_`.',
  key_revoked: 'The key was rotated or revoked by your operator. Use the key that replaced it; retrying with this one never succeeds.',
  signature_invalid:
    'For suppliers only: sign the exact bytes of the callback with the secret agreed for this endpoint, in the header your API ' +
    'documents. Nothing was stored; a retry with the same bytes and signature fails the same way.',
  key_out_of_scope: 'Use a key whose scopes include the one this operation requires (the reference names it on every operation).',
  test_key_live_resource: 'The id belongs to the live environment. Use your live key for it, or work with sandbox resources.',
  live_key_test_resource: 'The id or endpoint belongs to the sandbox (including every `/v1/test/*` helper). Use your test key.',
  verification_required: 'Live orders need a verified account. Ask your operator to verify it; the sandbox works without verification.',
  balance_insufficient: 'Top up the account balance, or order fewer eSIMs. Nothing was charged.',
  resource_not_found: 'Check the id and the environment of your key. Resources of other accounts are reported as not found.',
  no_such_route: 'Check the method and the path against the reference. A known path with a method it does not have is reported here too.',
  idempotency_key_reused:
    'If the message says the first request is still in progress, retry after `Retry-After`. Otherwise the key was used for a ' +
    'different request: use a new key for a new request.',
  already_exists: 'A resource with this identifying value exists (e.g. a webhook endpoint with this URL). Update that one instead.',
  invalid_state_transition:
    'The message and `detail` name the current state and the states it may move to. Read the resource again and choose an allowed move.',
  rate_limited: 'Wait the seconds in `Retry-After`, then retry. Watch `RateLimit-Remaining` to slow down before you are refused.',
  capability_not_live: 'This bundle or operation exists only in the sandbox. Choose a bundle from the live catalogue.',
  capability_not_orderable: 'This bundle or operation cannot be ordered now (retired, or switched off). Choose another bundle from the catalogue.',
  pricing_unavailable: 'Prices could not be fetched from the supplier. Retry later with backoff; nothing was ordered.',
  supplier_unavailable: 'The supplier is unreachable. Retry later with backoff.',
  supplier_refused: 'The supplier refused or failed the order; nothing was charged. Retry with the same `Idempotency-Key`, or later.',
  internal_error: 'Something failed on our side. Retry with backoff, using the same `Idempotency-Key`; quote the `Request-Id` to support if it persists.',
  quota_exceeded:
    'Retrying does not help: delete what you no longer need (test clocks, webhook endpoints), or wait for the next UTC day for test eSIMs. Live data has no such quota.',
};
