import { ERROR_CATALOGUE, ERROR_CODES } from '../errors/catalogue.ts';
import { ERROR_GUIDES } from '../errors/guides.ts';
import { WEBHOOK_HEADERS } from '../headers.ts';

// Sections of the reference's introduction that are guides rather than rules: the webhook signature and the error codes.

export const SIGNATURE_GUIDE = `
## Verifying webhook signatures

Every delivery is a POST of one event, signed per [Standard Webhooks](https://www.standardwebhooks.com) with your endpoint's
secret (\`whsec_...\`, shown once when you create the endpoint). Three headers carry the signature:

| Header | Value |
|---|---|
| \`${WEBHOOK_HEADERS.id}\` | The event id (\`evt_...\`): the same on every retry and replay. |
| \`${WEBHOOK_HEADERS.timestamp}\` | When this attempt was signed, in Unix seconds. |
| \`${WEBHOOK_HEADERS.signature}\` | \`v1,<signature>\`: the base64 HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<raw body>\`, keyed with the bytes of the secret's base64 after \`whsec_\`. Several may be listed, separated by spaces. |

**Verify the raw body, exactly as received.** The signature covers the bytes. JSON that a body parser parsed and your code
serialised again is not the same bytes (spacing, key order, escapes): read the body as text or bytes on the webhook route,
verify, then parse. Compare signatures in constant time, refuse a timestamp more than 5 minutes from your clock, and
answer 2xx within 15 seconds. Delivery is at least once: deduplicate on \`${WEBHOOK_HEADERS.id}\`.

With the SDK (it also types the event by \`type\`):

\`\`\`ts
import { verifyWebhook, WebhookVerificationError } from '@connectivity/sdk';

export async function POST(request: Request) {
  try {
    const event = verifyWebhook(await request.text(), request.headers, process.env.CONNECTIVITY_WEBHOOK_SECRET!);
    // event.type narrows event.data
    return new Response(null, { status: 204 });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return new Response('bad signature', { status: 400 });
    throw error;
  }
}
\`\`\`

With any Standard Webhooks library (\`standardwebhooks\` on npm, PyPI, Go, Ruby, ...):

\`\`\`ts
import { Webhook } from 'standardwebhooks';
const payload = new Webhook(secret).verify(rawBody, headers); // throws on a bad signature or an old timestamp
\`\`\`

By hand (Node.js):

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto';
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${rawBody}\`).digest();
const valid = signatureHeader.split(' ').some((entry) => {
  const [version, value] = entry.split(',');
  const given = Buffer.from(value ?? '', 'base64');
  return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
});
\`\`\`

Each event type's payload is under **Webhook events** below, with headers that verify against the body shown when the
secret is the one in the example of \`POST /v1/webhooks\` (apart from the timestamp's age).
`.trim();

/** One line per code: its status and type, what it means, and the page its `link` opens. */
export function errorsGuide(): string {
  const rows = ERROR_CODES.map((code) => {
    const { status, type, description } = ERROR_CATALOGUE[code];
    return `| [\`${code}\`](/v1/errors/${code}) | ${status} | \`${type}\` | ${description} ${ERROR_GUIDES[code]} |`;
  });
  return [
    '## Error codes',
    '',
    'Branch on `code`; `message` is for people and may change. Every error carries a `link` to the page of its code ' +
      '(`/v1/errors/<code>`: HTML in a browser, the JSON item to an API client with a key).',
    '',
    '| Code | Status | Type | Meaning and what to do |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
