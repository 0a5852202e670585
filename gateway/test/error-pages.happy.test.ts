import { ERROR_CATALOGUE, ERROR_CODES, ERROR_GUIDES } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/common-route-tests.ts';
import { BASE_URL, bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

// What a browser sends when a person opens a link.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('an error link opened by a person', () => {
  it('answers each code’s page as HTML to a browser without a key', async () => {
    for (const code of ERROR_CODES) {
      const res = await request(h.app).get(`/v1/errors/${code}`).set('Accept', BROWSER_ACCEPT);
      expect(res.status, code).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['request-id']).toMatch(/^req_/);
      expect(res.text).toContain(`<h1><code>${code}</code></h1>`);
      expect(res.text).toContain(`HTTP ${ERROR_CATALOGUE[code].status}`);
      expect(res.text).toContain(`${BASE_URL}/v1/errors/${code}`);
    }
    const page = await request(h.app).get('/v1/errors/idempotency_key_required').set('Accept', BROWSER_ACCEPT);
    // The guide's Markdown is rendered: inline code becomes <code>.
    expect(ERROR_GUIDES.idempotency_key_required).toContain('`Idempotency-Key`');
    expect(page.text).toContain('<code>Idempotency-Key</code>');
  });

  it('answers an unknown code with a 404 page listing the codes', async () => {
    const res = await request(h.app).get('/v1/errors/<script>').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('href="/v1/errors/key_missing"');
  });

  it('leaves API clients their JSON: with a key the item, without one 401 key_missing', async () => {
    const a = await h.account();
    const withKey = await request(h.app).get('/v1/errors/key_revoked').set(bearer(a.test));
    expect(withKey.status).toBe(200);
    expect(withKey.body).toEqual({
      object: 'error_code',
      code: 'key_revoked',
      type: 'authentication',
      status: 401,
      description: ERROR_CATALOGUE.key_revoked.description,
    });
    // A browser that sends a key is an API client too.
    const browserWithKey = await request(h.app).get('/v1/errors/key_revoked').set(bearer(a.test)).set('Accept', BROWSER_ACCEPT);
    expect(browserWithKey.headers['content-type']).toMatch(/^application\/json/);
    expectError(await request(h.app).get('/v1/errors/key_revoked'), 401, 'key_missing');
    expectError(await request(h.app).get('/v1/errors/key_revoked').set('Accept', 'application/json'), 401, 'key_missing');
  });
});
