import { mkdtempSync, rmSync } from 'node:fs';
import { globalAgent } from 'node:https';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiraloFake, type AiraloFake } from '../src/index.ts';
import { MB } from './support.ts';

/** The parts of the official SDK this test calls (its own typings are wrong, see SOURCE.md AIR notes). */
interface AiraloSdk {
  httpClient: unknown;
  initialize(): Promise<void>;
  getAllPackages(flat?: boolean, limit?: number | null, page?: number | null): Promise<{ data: Record<string, unknown>[] } | null>;
  getCountryPackages(country: string, flat?: boolean): Promise<{ data: Record<string, unknown>[] } | null>;
  order(packageId: string, quantity: number, description?: string): Promise<{ data: { id: number; sims: { iccid: string; qrcode: string }[] } }>;
  orderAsync(packageId: string, quantity: number, webhookUrl?: string | null, description?: string | null): Promise<{ data: { request_id: string } }>;
  getSimUsage(iccid: string): Promise<{ data: { status: string; remaining: number; total: number } }>;
  getSimPackageHistory(iccid: string): Promise<{ data: { status: string }[] }>;
  getSimInstructions(iccid: string, language?: string): Promise<{ data: { instructions: { language: string } } }>;
}

const require = createRequire(import.meta.url);
let fake: AiraloFake;
let cacheDir: string;
let sdk: AiraloSdk;

beforeAll(async () => {
  // The SDK only speaks HTTPS: a certificate made now for 127.0.0.1 and trusted by this process only.
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  globalAgent.options.ca = [pems.cert];
  fake = await startAiraloFake({ tls: { key: pems.private, cert: pems.cert }, checkResponses: true, checkWebhookOnOptIn: false });
  // The SDK keeps its token in a file cache: a fresh folder per run.
  cacheDir = mkdtempSync(join(tmpdir(), 'airalo-sdk-cache-'));
  process.env.AIRALO_SDK_CACHE_PATH = cacheDir;
  // Its base URL is a constant inside the package; pointed at the fake before anything reads it.
  (require('airalo-sdk/src/constants/ApiConstants') as { BASE_URL: { production: string } }).BASE_URL.production = `${fake.url}/`;
  const { Airalo } = require('airalo-sdk') as { Airalo: new (config: { client_id: string; client_secret: string }) => AiraloSdk };
  sdk = new Airalo({ client_id: fake.credentials.clientId, client_secret: fake.credentials.clientSecret });
  await sdk.initialize();
});

afterAll(async () => {
  await fake?.close();
  rmSync(cacheDir, { recursive: true, force: true });
  delete process.env.AIRALO_SDK_CACHE_PATH;
});

describe("Airalo's official SDK against the fake", () => {
  it('gets a token once, lists packages, orders, and reads usage, history and instructions', async () => {
    const all = await sdk.getAllPackages(true);
    const ids = all!.data.map((p) => p.package_id);
    expect(ids).toEqual(expect.arrayContaining(['change-7days-1gb', 'eurolink-7days-1gb', 'change-7days-1gb-topup']));
    const germany = await sdk.getCountryPackages('DE', true);
    expect(germany!.data.every((p) => (p.countries as string[]).includes('DE'))).toBe(true);
    const paged = await sdk.getAllPackages(false, 5);
    expect(paged!.data).toHaveLength(5);

    const order = await sdk.order('change-7days-1gb', 2, 'ord_sdk_1');
    expect(order.data.sims).toHaveLength(2);
    const [iccid] = order.data.sims.map((s) => s.iccid);
    expect(order.data.sims[0]!.qrcode).toMatch(/^LPA:1\$/);

    await fake.control.useData(iccid!, 512 * MB);
    const usage = await sdk.getSimUsage(iccid!);
    expect(usage.data).toMatchObject({ status: 'ACTIVE', remaining: 512, total: 1024 });
    const history = await sdk.getSimPackageHistory(iccid!);
    expect(history.data[0]!.status).toBe('ACTIVE');
    const instructions = await sdk.getSimInstructions(iccid!, 'en');
    expect(instructions.data.instructions.language).toBe('EN');

    const accepted = await sdk.orderAsync('elan-7days-1gb', 1, 'https://127.0.0.1:9/never', 'ord_sdk_async');
    expect(accepted.data.request_id).toHaveLength(25);

    expect(fake.control.counters().calls['POST /v2/token']).toBe(1);
    const { requests, responses } = fake.control.violations();
    expect(responses).toEqual([]);
    // The SDK sends JSON where the documents declare form fields (AIR-4, AIR-5): read as such, nothing else differs.
    expect(requests).toEqual([]);
  });
});
