import type { AiraloFake } from './start.ts';

/**
 * Points the Airalo fake's callbacks at `hook` the way an operator does it at Airalo, once,
 * through the API (a token, then `POST /notifications/opt-in` for low-data webhooks).
 */
export async function optInAiraloWebhook(fake: AiraloFake, hook: string): Promise<void> {
  const { clientId, clientSecret } = fake.credentials;
  const token = await fetch(`${fake.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials' }).toString(),
  });
  const { data } = (await token.json()) as { data: { access_token: string } };
  const optIn = await fetch(`${fake.url}/notifications/opt-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${data.access_token}` },
    body: JSON.stringify({ type: 'webhook_low_data', webhook_url: hook }),
  });
  if (!optIn.ok) throw new Error(`the Airalo fake refused the webhook opt-in (${optIn.status})`);
}
