import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { airaloValidator, startAiraloFake, type AiraloFake } from '../src/index.ts';
import { airaloClient, type Listed, type One } from './airalo-client.ts';
import { eventually, expectFaithfulExchanges, startReceiver, type ReceivedCallback } from './support.ts';

/** The official SDK's webhook check (`Signature.checkSignature(hash, payload)`), as a partner runs it. */
const require = createRequire(import.meta.url);
const Signature = require('airalo-sdk/src/helpers/Signature') as new (secret: string) => { checkSignature(hash: unknown, payload: unknown): boolean };

let fake: AiraloFake;
let receivers: Awaited<ReturnType<typeof startReceiver>>[];

beforeEach(async () => {
  receivers = [await startReceiver(), await startReceiver()];
  fake = await startAiraloFake({ checkResponses: true });
});

afterEach(async () => {
  expectFaithfulExchanges(fake.control);
  await fake.close();
  for (const receiver of receivers) await receiver.close();
});

const { token, call } = airaloClient(() => fake);

interface Accepted {
  request_id: string;
  accepted_at: string;
}
interface Delivered {
  data: { id: number; request_id: string; description: string; sims: { iccid: string }[] };
  meta: { message: string };
}

const orderAsync = (accessToken: string, json: Record<string, unknown>) =>
  call<One<Accepted> & { reason?: string }>('/orders-async', { method: 'POST', token: accessToken, json: { package_id: 'elan-7days-1gb', ...json } });

describe('Airalo fake: async orders arrive on the webhook', () => {
  it("sends the order to webhook_url with the 202's request_id, signed as the official SDK checks it, and keeps its description", async () => {
    const [receiver] = receivers;
    const accessToken = await token();
    const accepted = await orderAsync(accessToken, { quantity: 2, description: 'ord_async_sdk', webhook_url: receiver!.url });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ data: { request_id: expect.stringMatching(/^[\w-]{25}$/) }, meta: { message: 'success' } });
    expect(accepted.body.data.accepted_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    await eventually(() => receiver!.received.length === 1);
    const hook: ReceivedCallback = receiver!.received[0]!;
    expect(hook).toMatchObject({ method: 'POST', path: '/hooks' });
    expect(hook.headers['content-type']).toBe('application/json');
    const signature = hook.headers['airalo-signature'];
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    const sdk = new Signature(fake.credentials.clientSecret);
    expect(sdk.checkSignature(signature, hook.body)).toBe(true);
    // The check fails for another secret or a changed body: it is a check.
    expect(new Signature('another-secret').checkSignature(signature, hook.body)).toBe(false);
    expect(sdk.checkSignature(signature, hook.body.replace('ord_async_sdk', 'ord_async_sdX'))).toBe(false);

    const payload = JSON.parse(hook.body) as Delivered;
    expect(payload.meta).toEqual({ message: 'success' });
    expect(payload.data).toMatchObject({ request_id: accepted.body.data.request_id, description: 'ord_async_sdk' });
    expect(payload.data.sims).toHaveLength(2);
    // "The same as the response of the regular order", plus request_id.
    expect(airaloValidator().checkResponse({ method: 'POST', path: '/v2/orders', status: 200, contentType: 'application/json', body: payload })).toEqual([]);

    const found = await call<Listed<{ id: number; sims: { iccid: string }[] }>>('/orders?filter[description]=ord_async_sdk&include=sims', {
      token: accessToken,
    });
    expect(found.body.data.map((o) => o.id)).toEqual([payload.data.id]);
    expect(found.body.data[0]!.sims.map((s) => s.iccid)).toEqual(payload.data.sims.map((s) => s.iccid));
    expect(fake.control.counters()).toMatchObject({ purchases: 1, esimsSold: 2 });
  });

  it('sends to the opted-in async_orders URL unless the order names its own; with neither, 422 and nothing bought', async () => {
    const [optedIn, named] = receivers;
    const accessToken = await token();
    const optIn = await call('/notifications/opt-in', { method: 'POST', token: accessToken, json: { type: 'async_orders', webhook_url: optedIn!.url } });
    expect(optIn.status).toBe(200);

    const toOptedIn = await orderAsync(accessToken, { quantity: 1, description: 'ord_opted_in' });
    await eventually(() => optedIn!.received.length === 1);
    expect((JSON.parse(optedIn!.received[0]!.body) as Delivered).data.request_id).toBe(toOptedIn.body.data.request_id);

    // "The webhook_url if provided in payload will overwrite the one which is opted in."
    const toNamed = await orderAsync(accessToken, { quantity: 1, description: 'ord_named', webhook_url: named!.url });
    await eventually(() => named!.received.length === 1);
    expect((JSON.parse(named!.received[0]!.body) as Delivered).data.request_id).toBe(toNamed.body.data.request_id);
    expect(optedIn!.received).toHaveLength(1);

    expect((await call('/notifications/opt-out', { method: 'POST', token: accessToken, json: { type: 'async_orders' } })).status).toBe(204);
    const refused = await orderAsync(accessToken, { quantity: 1, description: 'ord_nowhere' });
    expect(refused).toMatchObject({ status: 422, body: { reason: 'User is not opted in and no webhook URL provided.' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.control.counters()).toMatchObject({ purchases: 2, esimsSold: 2 });
    expect((await call<Listed<unknown>>('/orders?filter[description]=ord_nowhere', { token: accessToken })).body.data).toEqual([]);
  });
});
