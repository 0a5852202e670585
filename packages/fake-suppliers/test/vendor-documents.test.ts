import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AIRALO_DEVIATIONS, airaloValidator, ESIM_GO_DEVIATIONS, esimGoValidator } from '../src/index.ts';
import { AIRALO_DOCUMENT_FILES, quoteInstallationHtml } from '../src/airalo/documents.ts';
import { esimGoDocument } from '../src/esim-go/documents.ts';

const vendorFile = (path: string) => new URL(`../vendor/${path}`, import.meta.url);
const sha256 = (path: string) =>
  createHash('sha256')
    .update(readFileSync(vendorFile(path)))
    .digest('hex');

/** The `<sha256>  <file>` lines of a SOURCE.md. */
function recordedChecksums(vendor: string): Map<string, string> {
  const text = readFileSync(vendorFile(`${vendor}/SOURCE.md`), 'utf8');
  return new Map([...text.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map((m) => [m[2]!, m[1]!]));
}

describe('the vendor documents kept in the package', () => {
  it('are byte for byte the files their SOURCE.md records', () => {
    const esimGo = recordedChecksums('esim-go');
    expect(esimGo.get('esim_go_schema_v2_4.yaml')).toBe('11025da49766c3572fcf76953994b635459bb5a6ba213074e8ba432b760e1cf7');
    expect(sha256('esim-go/esim_go_schema_v2_4.yaml')).toBe(esimGo.get('esim_go_schema_v2_4.yaml'));
    const airalo = recordedChecksums('airalo');
    expect([...airalo.keys()].sort()).toEqual([...AIRALO_DOCUMENT_FILES].sort());
    for (const [file, sum] of airalo) expect(sha256(`airalo/${file}`), file).toBe(sum);
  });

  it('are read with only their recorded repairs: Mac-Roman text (EG-1), the boolean `required` (EG-2), quoted HTML examples (AIR-1)', () => {
    const document = esimGoDocument();
    const revoke = document.paths['/esims/{iccid}/bundles/{name}']!.delete as { description: string };
    expect(revoke.description).toContain('• ESIM_1G_UK (Assignment ID: 243)');
    const raw = readFileSync(vendorFile('airalo/airalo-rest-api-endpoints-manage-orders-api-openapi.yml'), 'utf8');
    const repaired = quoteInstallationHtml(raw);
    const changed = raw.split('\n').filter((line, i) => line !== repaired.split('\n')[i]);
    expect(changed).toHaveLength(4);
    expect(changed.every((line) => /^\s+(manual|qrcode)_installation: <p>/.test(line))).toBe(true);
  });

  it('declare every operation the fakes serve', () => {
    expect(airaloValidator().operations()).toEqual(
      expect.arrayContaining([
        'POST /v2/token',
        'GET /v2/packages',
        'POST /v2/orders',
        'POST /v2/orders-async',
        'GET /v2/orders',
        'GET /v2/orders/{order_id}',
        'GET /v2/sims',
        'GET /v2/sims/{sim_iccid}',
        'GET /v2/sims/{sim_iccid}/usage',
        'GET /v2/sims/{iccid}/packages',
        'GET /v2/balance',
        'POST /v2/refund',
        'POST /v2/notifications/opt-in',
        'GET /v2/sims/{iccid}/topups',
        'POST /v2/orders/topups',
      ]),
    );
    expect(esimGoValidator().operations()).toHaveLength(27);
  });

  it('tie every deviation to a defect their SOURCE.md names', () => {
    for (const [vendor, deviations] of [
      ['airalo', AIRALO_DEVIATIONS],
      ['esim-go', ESIM_GO_DEVIATIONS],
    ] as const) {
      const source = readFileSync(vendorFile(`${vendor}/SOURCE.md`), 'utf8');
      for (const deviation of deviations) expect(source, `${deviation.id} (${deviation.why})`).toContain(`| ${deviation.id} |`);
    }
  });
});

describe('the validators built from them', () => {
  const airalo = airaloValidator();
  const esimGo = esimGoValidator();

  it('refuse a request the documents do not allow', () => {
    expect(airalo.checkRequest({ method: 'POST', path: '/v2/orders/1/cancel', query: {}, headers: {} })).toEqual([
      expect.stringContaining('is not an operation'),
    ]);
    expect(airalo.checkRequest({ method: 'GET', path: '/v2/orders', query: { 'filter[reference]': 'x' }, headers: {} })).toEqual([
      'query parameter "filter[reference]" is not in the document',
    ]);
    expect(airalo.checkRequest({ method: 'POST', path: '/v2/orders', query: {}, headers: {}, contentType: 'application/json', body: { quantity: 1 } })).toEqual(
      [expect.stringContaining("must have required property 'package_id'")],
    );
    expect(airalo.checkRequest({ method: 'POST', path: '/v2/orders', query: {}, headers: {}, contentType: 'text/xml', body: '<order/>' })[0]).toContain(
      'is not one of',
    );
    expect(airalo.checkRequest({ method: 'GET', path: '/v2/sims/1/instructions', query: {}, headers: {} })).toEqual([
      'header parameter "Accept-Language" is required',
    ]);
    expect(esimGo.checkRequest({ method: 'GET', path: '/v2.4/esims', query: { perPage: '7' }, headers: {} })[0]).toContain('perPage');
    expect(esimGo.checkRequest({ method: 'GET', path: '/v2.4/esims', query: { filterBy: 'customerRef', filter: 'x' }, headers: {} })).toEqual([]);
    expect(esimGo.checkRequest({ method: 'GET', path: '/v2.4/esims', query: { filterBy: 'colour' }, headers: {} })[0]).toContain('filterBy');
  });

  it('refuse an answer the documents do not allow, and only where a named deviation does not apply', () => {
    const usage = {
      remaining: 1,
      total: 2,
      expired_at: '2026-01-01 00:00:00',
      is_unlimited: false,
      status: 'ACTIVE',
      remaining_voice: 0,
      remaining_text: 0,
      total_voice: 0,
      total_text: 0,
    };
    const check = (body: unknown, status = 200) =>
      airalo.checkResponse({ method: 'GET', path: '/v2/sims/1/usage', status, contentType: 'application/json', body });
    expect(check({ data: usage, meta: { message: 'success' } })).toEqual([]);
    expect(check({ data: { ...usage, remaining: '1' }, meta: { message: 'success' } })[0]).toContain('/data/remaining');
    expect(check({ data: usage })[0]).toContain("required property 'meta'");
    expect(check({ message: 'x' }, 418)).toEqual(['status 418 is not documented for GET /v2/sims/{sim_iccid}/usage']);
    // AIR-19 lets the balance be a decimal; nothing else about the balance answer is loosened.
    const balance = (amount: unknown) =>
      airalo.checkResponse({
        method: 'GET',
        path: '/v2/balance',
        status: 200,
        contentType: 'application/json',
        body: { data: { balances: { name: 'balance', availableBalance: { amount, currency: 'USD' } } }, meta: { message: 'success' } },
      });
    expect(balance(12.5)).toEqual([]);
    expect(balance('12.5')[0]).toContain('amount');
    expect(
      esimGo.checkResponse({
        method: 'GET',
        path: '/v2.4/esims/1/history',
        status: 200,
        contentType: 'application/json',
        body: [{ name: 'Bundle Applied', bundleName: 'b', date: 'd' }],
      }),
    ).toEqual([]);
    expect(
      esimGo.checkResponse({ method: 'GET', path: '/v2.4/esims/1/history', status: 200, contentType: 'application/json', body: [{ name: 1 }] })[0],
    ).toContain('name');
    // EG-11: POST /orders declares its 503 "Processing" text/plain; the JSON message is read against its schema.
    const processing = (body: unknown) => esimGo.checkResponse({ method: 'POST', path: '/v2.4/orders', status: 503, contentType: 'application/json', body });
    expect(processing({ message: 'Processing' })).toEqual([]);
    expect(processing({ message: 503 })[0]).toContain('message');
  });
});
