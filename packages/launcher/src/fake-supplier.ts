import { optInAiraloWebhook, startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';

export { optInAiraloWebhook };

export type FakeVendorName = 'airalo' | 'esim-go';

export interface RunningFakeSupplier {
  vendor: FakeVendorName;
  url: string;
  /** The settings that make catalogue buy from this fake (LIVE_SUPPLIER, URL, credentials). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts the fake of `vendor` for a laptop run and says how to point the live environment at it.
 * Its callbacks go to the gateway's public hook for that vendor (`<gatewayUrl>/hooks/<vendor>`):
 * eSIM Go's callback URL is an account setting, Airalo's is an opt-in made through its API (done
 * here as an operator would do once, without Airalo's HEAD check, since the gateway may not be
 * listening yet).
 */
export async function startFakeSupplier(vendor: FakeVendorName, options: { port: number; gatewayUrl: string }): Promise<RunningFakeSupplier> {
  const hook = hookUrl(options.gatewayUrl, vendor);
  if (vendor === 'esim-go') {
    // A reseller asks eSIM Go's account manager to turn refunds on; the laptop run starts as such an
    // account (PUT /_fake/refunds {"enabled": false} tries the other kind).
    const fake = await startEsimGoFake({ port: options.port, callbackUrl: hook, refundsEnabled: true });
    return { vendor, url: fake.url, env: liveSupplierEnv(fake), close: () => fake.close() };
  }
  const fake = await startAiraloFake({ port: options.port, checkWebhookOnOptIn: false });
  await optInAiraloWebhook(fake, hook);
  await fake.control.resetObservations();
  // Larger orders go through orders-async, whose webhook comes to the same hook.
  return { vendor, url: fake.url, env: { ...liveSupplierEnv(fake), AIRALO_WEBHOOK_URL: hook }, close: () => fake.close() };
}

/** The gateway's public hook that `vendor`'s callbacks go to. */
export const hookUrl = (gatewayUrl: string, vendor: FakeVendorName): string => `${gatewayUrl.replace(/\/+$/, '')}/hooks/${vendor}`;

/** The settings that make catalogue buy from `fake` (LIVE_SUPPLIER, its URL, its credentials). */
export function liveSupplierEnv(fake: AiraloFake | EsimGoFake): Record<string, string> {
  if ('apiKey' in fake) return { LIVE_SUPPLIER: 'esim-go', ESIMGO_API_URL: fake.url, ESIMGO_API_KEY: fake.apiKey };
  const { clientId, clientSecret } = fake.credentials;
  return { LIVE_SUPPLIER: 'airalo', AIRALO_API_URL: fake.url, AIRALO_CLIENT_ID: clientId, AIRALO_CLIENT_SECRET: clientSecret };
}
