import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

const pinned = async (accountId: string) =>
  (await h.db.knex('gateway.accounts').where({ id: accountId }).first<{ pinned_version: string | null }>('pinned_version')).pinned_version;

describe('versioning', () => {
  it('GET /v1/version returns the version answering the account and the versions served', async () => {
    const a = await h.account();
    const res = await request(h.app).get('/v1/version').set(bearer(a.test));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'version', version: '2026-09-01', serves: ['2026-09-01'] });
    expect(res.headers['service-version']).toBe('2026-09-01');
  });

  it('pins the version on the account’s first authenticated call', async () => {
    const a = await h.account();
    expect(await pinned(a.accountId)).toBeNull();
    await request(h.app).get('/v1/esim').set(bearer(a.live)).expect(200);
    expect(await pinned(a.accountId)).toBe('2026-09-01');
  });

  it('an unknown Service-Version: 400 unsupported_version, and nothing is pinned', async () => {
    const a = await h.account();
    for (const value of ['2025-01-01', 'latest', '']) {
      const res = await request(h.app).get('/v1/version').set(bearer(a.test)).set('Service-Version', value);
      expectError(res, 400, 'unsupported_version', 'Service-Version');
      expect(res.headers['service-version']).toBe('2026-09-01');
    }
    expect(await pinned(a.accountId)).toBeNull();
  });

  it('the served version in the header is accepted', async () => {
    const a = await h.account();
    const res = await request(h.app).get('/v1/version').set(bearer(a.test)).set('Service-Version', '2026-09-01');
    expect(res.status).toBe(200);
    expect(res.headers['service-version']).toBe('2026-09-01');
  });

  it('every response carries Service-Version, errors included', async () => {
    const a = await h.account();
    for (const res of [
      await request(h.app).get('/v1/esim'),
      await request(h.app).get('/v1/nowhere').set(bearer(a.test)),
      await request(h.app).get('/v1/openapi.json'),
      await request(h.app).get('/healthz'),
    ]) {
      expect(res.headers['service-version']).toBe('2026-09-01');
      expect(res.headers['request-id']).toMatch(/^req_/);
    }
  });

  it('no deprecation headers while the version has no date in the timetable', async () => {
    const a = await h.account();
    const res = await request(h.app).get('/v1/version').set(bearer(a.test));
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });

  it('a version on the deprecation timetable gets Deprecation, Sunset and Link headers', async () => {
    const dated = await startHarness({
      SERVICE_VERSION_TIMETABLE: JSON.stringify({ '2026-09-01': { deprecation: '2027-03-01T00:00:00Z', sunset: '2027-09-01T00:00:00Z' } }),
    });
    try {
      const a = await dated.account();
      const res = await request(dated.app).get('/v1/version').set(bearer(a.test));
      expect(res.status).toBe(200);
      expect(res.headers.deprecation).toBe(`@${Date.UTC(2027, 2, 1) / 1000}`);
      expect(res.headers.sunset).toBe('Wed, 01 Sep 2027 00:00:00 GMT');
      expect(res.headers.link).toBe('<https://api.example.test/docs>; rel="deprecation"; type="text/html"');
    } finally {
      await dated.close();
    }
  });
});
