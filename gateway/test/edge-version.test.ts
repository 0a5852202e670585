import { SERVICE_VERSIONS } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseServedVersion, pinVersionOnFirstCall } from '../src/edge/version.ts';
import type { Identity } from '../src/domain/identity.ts';
import { LATEST_VERSION } from '../src/domain/versions.ts';
import { identityOf, runStep } from './support/edge-step.ts';
import { startHarness, type Harness } from './support/harness.ts';

/** Step 2 alone: the version chosen from the header and the account's pin, and the pin itself. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const NEWEST = LATEST_VERSION;
const noTimetable = { timetable: {}, deprecationLink: 'https://api.example.test/docs' };

function chooseFor(identity: Identity, header?: string, deps = noTimetable) {
  return runStep(
    (req, res) => chooseServedVersion(deps, req, res, identity),
    (client) => (header === undefined ? client.get('/v1/esim') : client.get('/v1/esim').set('Service-Version', header)),
  );
}

describe('the version step', () => {
  it('without a header or a pin: the newest version, said in Service-Version', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    expect(identity.pinnedVersion).toBeNull();
    const { value, error, response } = await chooseFor(identity);
    expect(error).toBeUndefined();
    expect(value).toBe(NEWEST);
    expect(response.headers['service-version']).toBe(NEWEST);
    expect(response.headers.deprecation).toBeUndefined();
  });

  it('a served version in the header is used; one not served is 400 unsupported_version', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    expect((await chooseFor(identity, SERVICE_VERSIONS[0])).value).toBe(SERVICE_VERSIONS[0]);
    const refused = await chooseFor(identity, '1999-01-01');
    expect(refused.error?.code).toBe('unsupported_version');
    expect(refused.error?.param).toBe('Service-Version');
    expect(refused.response.headers['service-version']).toBeUndefined();
  });

  it('the pin answers a request without the header; a pin no longer served gives way to the newest', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    identity.pinnedVersion = SERVICE_VERSIONS[0];
    expect((await chooseFor(identity)).value).toBe(SERVICE_VERSIONS[0]);
    identity.pinnedVersion = '2001-01-01';
    expect((await chooseFor(identity)).value).toBe(NEWEST);
    expect((await chooseFor(identity, '2001-01-01')).error?.code).toBe('unsupported_version');
  });

  it('a version on the timetable gets Deprecation, Sunset and Link', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const timetable = { [NEWEST]: { deprecatedAt: 1_900_000_000, sunsetAt: 1_950_000_000 } };
    const { response } = await chooseFor(identity, undefined, { ...noTimetable, timetable });
    expect(response.headers.deprecation).toBe('@1900000000');
    expect(response.headers.sunset).toBe(new Date(1_950_000_000_000).toUTCString());
    expect(response.headers.link).toBe('<https://api.example.test/docs>; rel="deprecation"; type="text/html"');
  });

  it('the first call pins the account (the first pin wins), and every cached identity of its keys learns it', async () => {
    const a = await h.account();
    const test = await identityOf(h, a.test);
    const live = await identityOf(h, a.live);
    const deps = { knex: h.db.knex, edge: h.edge };
    await pinVersionOnFirstCall(deps, test, NEWEST);
    expect(test.pinnedVersion).toBe(NEWEST);
    expect(live.pinnedVersion).toBe(NEWEST);
    const row = await h.db.knex('gateway.accounts').where({ id: a.accountId }).first<{ pinned_version: string }>('pinned_version');
    expect(row.pinned_version).toBe(NEWEST);
    // Another instance's late pin does not move it.
    await pinVersionOnFirstCall(deps, live, '2030-01-01');
    expect(live.pinnedVersion).toBe(NEWEST);
    expect(await identityOf(h, a.live)).toBe(live);
  });
});
