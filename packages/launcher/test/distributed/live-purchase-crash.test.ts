import { assertNoViolations, startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { liveSupplierEnv } from '../../src/fake-supplier.ts';
import { distributedBackends, liveAccount, QUICK_RECOVERY_ENV, retryingClient, until } from './support.ts';

/** How long the vendor's answer is held after it made the purchase: the window the kill lands in. */
const ANSWER_LATE_MS = 2_000;
/**
 * The idempotency lease, renewed at a third of it while a request runs: a crashed attempt's claim
 * is taken over 2/3 to 3/3 of it after the crash. As in production (10 s against the supplier's 5 s
 * timeout), it outlasts the vendor call still running in catalogue, so the retry asks the vendor
 * only after catalogue has its answer (eSIM Go's eSIMs get our reference just after it, record 0132).
 */
const LEASE_MS = 6_000;
const BALANCE_CENTS = 1_000_000;

/**
 * Exactly one purchase per order across a crash (record 0152), with every service its own process:
 * the vendor makes the purchase at once and holds its answer (the fake's `late` fault); while it
 * holds it, inventory (the ordering service), or catalogue (the one that calls the vendor), is
 * killed with SIGKILL, so the vendor has sold the profiles and nothing of it is committed on our
 * side. The service is started again, and the client retries the same request with the same
 * Idempotency-Key, as the SDK does, until it gets a final answer. The retry must find what the
 * vendor sold for the order (under its reference, or for eSIM Go after a catalogue crash, by what
 * was ordered: nothing was tagged) and record it: one purchase at the vendor, the order recorded
 * once with those very profiles, charged once.
 */
describe.each([
  { vendor: 'esim-go', victim: 'inventory' },
  { vendor: 'airalo', victim: 'inventory' },
  // eSIM Go's orders carry no reference: catalogue killed before it tagged the eSIMs leaves an
  // order nothing points to, which the retry must find by what was ordered (record 0132).
  { vendor: 'esim-go', victim: 'catalogue' },
] as const)('kill -9 of $victim while $vendor answers a purchase', ({ vendor, victim }) => {
  let fake: AiraloFake | EsimGoFake;
  let stack: DistributedStack;
  let live = '';
  let accountId = '';

  /** Every ICCID the fake has sold, in the vendor's form (a vendor may add a 20th digit to ours). */
  const soldIccids = (): string[] => ('apiKey' in fake ? Object.keys(fake.control.state().esims) : Object.keys(fake.control.state().sims));

  beforeAll(async () => {
    fake = vendor === 'airalo' ? await startAiraloFake({ checkWebhookOnOptIn: false, checkResponses: true }) : await startEsimGoFake({ checkResponses: true });
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      env: {
        ...QUICK_RECOVERY_ENV,
        IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
        ...liveSupplierEnv(fake),
        // An untagged order is left to the call that placed it for its timeout and retries (a
        // few seconds here, not the production half-minute) before a retry may claim it.
        ...(victim === 'catalogue' ? { SUPPLIER_TIMEOUT_MS: '1000', SUPPLIER_RETRIES: '1' } : {}),
      },
    });
    ({ id: accountId, live } = await liveAccount(stack, `Live ${vendor}`, BALANCE_CENTS));
    await fake.control.resetObservations();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  test('one purchase at the vendor; the retry records that purchase once and charges once', async () => {
    const client = retryingClient(stack.gatewayUrls, live);
    const catalogue = await client.call('GET', '/v1/esim/bundles?limit=100', undefined);
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    const bundle = (catalogue.body.data as { name: string; simulated: boolean }[]).find((b) => !b.simulated);
    if (!bundle) throw new Error(`the ${vendor} fake sells no live bundle`);

    const key = `live-crash-${vendor}-${Date.now()}`;
    await fake.control.fault({ kind: 'late', delayMs: ANSWER_LATE_MS });
    const order = client.call('POST', '/v1/esim', key, { bundle: bundle.name, quantity: 2 }, 60_000);

    // The vendor has sold the profiles; its answer has not reached us yet.
    await until('the vendor made the purchase', () => fake.control.counters().purchases === 1, 20_000);
    await stack.supervisor.kill(victim);
    await fake.control.clearFaults();
    await stack.supervisor.restart(victim);

    const answer = await order;
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);

    // One purchase, and the order holds exactly the profiles the vendor sold.
    // The retry asked the vendor what it had sold under the order's reference instead of buying.
    const { purchases, calls } = fake.control.counters();
    expect(purchases).toBe(1);
    expect(calls[vendor === 'airalo' ? 'GET /v2/orders' : 'GET /esims']).toBeGreaterThanOrEqual(1);
    const sold = soldIccids();
    expect(sold).toHaveLength(2);
    const esims = answer.body.esims as { id: string; iccid: string }[];
    const vendorForm = (iccid: string) => sold.find((candidate) => candidate.startsWith(iccid));
    expect(esims.map((esim) => vendorForm(esim.iccid)).sort()).toEqual([...sold].sort());

    // Recorded once: the live key lists these two eSIMs once, one order, one debit, the intent settled.
    const listed = await client.call('GET', '/v1/esim?limit=100', undefined);
    expect(listed.status).toBe(200);
    expect((listed.body.data as { id: string }[]).map((esim) => esim.id).sort()).toEqual(esims.map((esim) => esim.id).sort());
    expect(await stack.knex('inventory.orders').where({ account_id: accountId }).select('id')).toEqual([{ id: answer.body.id }]);
    const balance = await client.call('GET', '/v1/balance', undefined);
    expect(balance.body).toMatchObject({ available_cents: BALANCE_CENTS - Number(answer.body.total_cents), pending_cents: 0 });
    const debits = await client.call('GET', `/v1/balance_transactions?type=order`, undefined);
    expect((debits.body.data as { source: string }[]).map((t) => t.source)).toEqual([answer.body.id]);
    expect(await stack.knex('inventory.purchase_intents').where({ account_id: accountId }).select('order_id', 'state')).toEqual([
      { order_id: answer.body.id, state: 'recorded' },
    ]);
    expect(await stack.knex('inventory.supplier_releases').count<{ count: string }[]>('* as count')).toEqual([{ count: '0' }]);

    // A second retry of the request is answered from the record: still one purchase.
    const again = await client.call('POST', '/v1/esim', key, { bundle: bundle.name, quantity: 2 });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(answer.body.id);
    expect(fake.control.counters().purchases).toBe(1);

    // The crash was felt, and every answer on the way was the error object.
    expect(client.networkFailures() + client.errors.length).toBeGreaterThan(0);
    for (const error of client.errors) {
      expect(typeof error.body.error?.code, `${error.status} ${JSON.stringify(error.body)}`).toBe('string');
      expect(error.body.error?.link).toMatch(/\/v1\/errors\//);
    }
    assertNoViolations(fake, 'both');
  });
});
