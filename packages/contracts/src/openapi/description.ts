// The introduction of openapi.json: the rules that hold for every operation, for people and for generators' docs.
export const API_DESCRIPTION = `
The Connectivity Service sells and manages eSIMs. Requests and responses are JSON; a resource is returned as a bare object.

**Authentication.** Send an API key as \`Authorization: Bearer <API_KEY>\`. Keys beginning \`sk_test_\` reach simulated
(sandbox) resources only, keys beginning \`sk_live_\` live resources only. Each operation names the scope it requires.

**Idempotency.** Every call that changes something (POST, PATCH, DELETE) requires an \`Idempotency-Key\` header of 8 to 128
printable ASCII characters. A repeat with the same key, method, path and body returns the stored response with \`Idempotent-Replayed: true\`;
the same key with a different request is 409 \`idempotency_key_reused\`. Keys are kept 24 hours and belong to the account and
its environment, not to the API key: after a key rotation a retry with the new API key gets the stored response.

**Versioning.** The only version is \`2026-09-01\`. It is pinned to the account at its first call; a request may name it
in \`Service-Version\`. Every response carries \`Service-Version\` and \`Request-Id\`.

**Lists.** Every list answers \`{ object: "list", data, has_more, next_cursor }\` and accepts \`limit\` (1 to 100, default 20)
and \`cursor\` (the previous page's \`next_cursor\`).

**Errors.** Every error answers \`{ error: { type, code, message, param?, link, detail? } }\`; branch on \`code\`.
GET /v1/error_codes lists every code.

**Rate limit.** 120 requests per 60 seconds per key. Every response carries \`RateLimit-Policy\`, \`RateLimit\`,
\`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; a 429 also carries \`Retry-After\`.

**Formats.** Timestamps are integer Unix seconds (UTC); an event's \`time\` is RFC 3339 with milliseconds. Ids are a type
prefix, an underscore and 20 or more letters and digits (\`esim_\`, \`ord_\`, \`evt_\`, \`key_\`, \`we_\`, \`msgatt_\`, \`req_\`).

**Events and webhooks.** Everything asynchronous is an event, delivered to your webhook endpoints signed per Standard Webhooks
(\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`), retried with backoff for about 3 days, and replayable.
Test and live events are delivered separately. Each event type and its payload is in the \`webhooks\` section of this
document (**Webhook events**) and listed by GET /v1/event_types.
`.trim();
