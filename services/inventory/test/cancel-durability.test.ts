import type { Esim, Order } from '@connectivity/contracts';
import { createLogger } from '@connectivity/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import {
  type Caller,
  eventTypesOf,
  eventually,
  type Harness,
  LIVE_BUNDLE,
  newCaller,
  resetSupplier,
  startInventory,
  supplierBundleState,
  supplierCalls,
} from './support.ts';

let h: Harness;
let caller: Caller;
beforeAll(async () => {
  h = await startInventory();
  caller = newCaller('live');
  await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await resetSupplier(h);
  await h.db.knex.raw('drop trigger if exists fail_once on inventory.esims');
  await h.db.knex.raw('drop function if exists inventory.fail_once()');
  await h.db.knex.raw('drop sequence if exists inventory.fail_once_seq');
});

async function liveEsim(): Promise<Esim> {
  const res = await h.order(caller, { bundle: LIVE_BUNDLE });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as Order).esims[0] as Esim;
}

/**
 * Makes the first update of this eSIM to `expired` fail, as a database failure would. A
 * sequence counts the attempts because it is not rolled back with the failed transaction.
 */
async function failFirstExpiryOf(esimId: string): Promise<void> {
  await h.db.knex.raw('create sequence inventory.fail_once_seq');
  await h.db.knex.raw(`
    create function inventory.fail_once() returns trigger language plpgsql as $$
    begin
      if new.id = '${esimId}' and new.state = 'expired' and nextval('inventory.fail_once_seq') = 1 then
        raise exception 'forced failure of the state write';
      end if;
      return new;
    end $$`);
  await h.db.knex.raw('create trigger fail_once before update on inventory.esims for each row execute function inventory.fail_once()');
}

/** eSIM Go ends a profile's bundle with DELETE /esims/{iccid}/bundles/{name}. */
const terminateCalls = () => supplierCalls(h, 'DELETE', '/bundles/');
const stateOf = async (esim: Esim) => (await h.get(caller, `/v1/esim/${esim.id}`)).body.state as string;

describe('a live cancel whose database write fails after the supplier terminated', () => {
  it('is applied by the next sweeper pass, with one esim.expired and one supplier call', async () => {
    const esim = await liveEsim();
    await failFirstExpiryOf(esim.id);
    const before = terminateCalls();

    const res = await h.patch(caller, esim.id, 'expired');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(supplierBundleState(h, esim.iccid)).toBe('revoked');
    expect(await stateOf(esim)).toBe('released');

    const sweeper = startExpirySweeper({ knex: h.db.knex, logger: createLogger({ name: 'test', level: 'silent' }), intervalMs: 3_600_000, batchSize: 5 });
    try {
      expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
      // A second pass finds nothing left to apply.
      expect(await sweeper.sweep()).toBe(0);
    } finally {
      await sweeper.stop();
    }
    expect(await stateOf(esim)).toBe('expired');
    expect(terminateCalls() - before).toBe(1);
    await eventually(async () => expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']));
  });

  it('is applied by the next PATCH without asking the supplier again', async () => {
    const esim = await liveEsim();
    expect((await h.usage(caller, esim.id, 1)).body.state).toBe('active');
    await failFirstExpiryOf(esim.id);
    const before = terminateCalls();
    expect((await h.patch(caller, esim.id, 'expired')).status).toBe(500);

    // A suspend now is refused from expired: the recorded cancel is applied first, and kept,
    // and the supplier is not asked to suspend a profile it terminated.
    const suspend = await h.patch(caller, esim.id, 'suspended');
    expect(suspend.status).toBe(409);
    expect(suspend.body.error.code).toBe('invalid_state_transition');
    expect(await stateOf(esim)).toBe('expired');
    const again = await h.patch(caller, esim.id, 'expired');
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('expired');

    expect(terminateCalls() - before).toBe(1);
    const sequence = ['esim.released', 'esim.installed', 'esim.activated', 'esim.expired'];
    await eventually(async () => expect(await eventTypesOf(h, esim.id, 4)).toEqual(sequence));
    // Nothing arrives later either: the outbox is drained and no second event follows.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.eventsOf(esim.id).map((e) => e.type)).toEqual(sequence);
  });
});
