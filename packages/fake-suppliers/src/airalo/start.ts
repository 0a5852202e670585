import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { settle } from '../shared/recorder.ts';
import { fakeRuntime } from '../shared/runtime.ts';
import { createAiraloApp } from './app.ts';
import { AIRALO_CATALOGUE, packageIndex } from './catalogue.ts';
import { AIRALO_RATE_LIMITS, AIRALO_USAGE_CACHE_MS, type AiraloContext, type AiraloControl, type AiraloFakeOptions } from './context.ts';

export type { AiraloControl } from './context.ts';
import { applyElapsedTime, attachSim, depleteSim, expireSim, installSim, setUsageStatus, useData } from './lifecycle.ts';
import { usageBody } from './presenters.ts';
import { approveRefund, rejectRefund } from './refunds.ts';
import { freshAiraloState, upgradeAiraloState } from './state.ts';

export interface AiraloFake {
  /** The API base, as AIRALO_API_URL takes it: `<origin>/v2`. */
  url: string;
  origin: string;
  credentials: { clientId: string; clientSecret: string };
  control: AiraloControl;
  app: Express;
  close(): Promise<void>;
}

/** Starts the Airalo fake (HTTP, or HTTPS with `tls`) on a free port unless one is given. */
export async function startAiraloFake(options: AiraloFakeOptions = {}): Promise<AiraloFake> {
  const runtime = fakeRuntime(options, () => freshAiraloState(options.balance ?? 10_000));
  upgradeAiraloState(runtime.context.state);
  // A copy: a price changed on one fake never reaches another.
  const catalogue = structuredClone(options.catalogue ?? AIRALO_CATALOGUE);
  const ctx: AiraloContext = {
    ...runtime.context,
    settings: {
      clientId: options.clientId ?? `fake-${randomBytes(6).toString('hex')}`,
      clientSecret: options.clientSecret ?? randomBytes(24).toString('hex'),
      tokenTtlSeconds: options.tokenTtlSeconds ?? 86_400,
      iccidDigits: options.iccidDigits ?? 19,
      smdpAddress: options.smdpAddress ?? 'lpa.airalo.example',
      checkWebhookOnOptIn: options.checkWebhookOnOptIn ?? true,
      rateLimits: { ...AIRALO_RATE_LIMITS, ...options.rateLimits },
      refundReview: options.refundReview ?? 'manual',
      usageCacheMs: options.usageCacheMs ?? AIRALO_USAGE_CACHE_MS,
    },
    usageCache: new Map(),
    catalogue,
    packages: packageIndex(catalogue),
  };
  const control: AiraloControl = {
    ...runtime.control,
    // Airalo documents no "come back later" answer to an order; a test setting one must hear so.
    fault: (fault) =>
      fault.kind === 'processing'
        ? Promise.reject(new Error("Airalo documents no 503 Processing answer: the 'processing' fault is eSIM Go's"))
        : runtime.control.fault(fault),
    install: (iccid) => settle(() => installSim(ctx, iccid)),
    attach: (iccid) => settle(() => attachSim(ctx, iccid)),
    useData: (iccid, bytes) => useData(ctx, iccid, bytes),
    deplete: (iccid) => depleteSim(ctx, iccid),
    expire: (iccid) => expireSim(ctx, iccid),
    setUsageStatus: (iccid, status) => settle(() => setUsageStatus(ctx, iccid, status)),
    travel: async (ms) => {
      ctx.clock.travel(ms);
      await applyElapsedTime(ctx);
    },
    esim: (iccid) => {
      const sim = ctx.state.sims[iccid];
      return sim ? { ...structuredClone(sim), usage: usageBody(ctx, sim) } : undefined;
    },
    state: () => structuredClone(ctx.state),
    refunds: () => structuredClone(ctx.state.refunds),
    approveRefund: (refundId) => settle(() => approveRefund(ctx, refundId)),
    rejectRefund: (refundId) => settle(() => rejectRefund(ctx, refundId)),
    setPrice: (packageId, netPriceUsd) => {
      const found = ctx.packages.get(packageId);
      if (!found) throw new Error(`no package ${packageId}`);
      if (!(netPriceUsd >= 0)) throw new Error('a price is a number of dollars, at least 0');
      found.pkg.net_price = netPriceUsd;
    },
  };
  const app = createAiraloApp(ctx, control, runtime.checks);
  const { server, close } = await runtime.serve(app);
  return {
    url: `${server.origin}/v2`,
    origin: server.origin,
    credentials: { clientId: ctx.settings.clientId, clientSecret: ctx.settings.clientSecret },
    control,
    app,
    close,
  };
}
