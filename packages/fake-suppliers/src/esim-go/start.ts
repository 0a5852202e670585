import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { settle } from '../shared/recorder.ts';
import { fakeRuntime } from '../shared/runtime.ts';
import { createEsimGoApp } from './app.ts';
import { ESIM_GO_CATALOGUE } from './catalogue.ts';
import { bundleOf, type EsimGoContext, type EsimGoControl, type EsimGoFakeOptions } from './context.ts';

export type { EsimGoControl } from './context.ts';
import { applyElapsedTime, attachEsim, depleteEsim, expireEsim, installEsim, setBundleState, setProfileStatus, useData } from './lifecycle.ts';
import { bundlesBody, esimDetails } from './presenters.ts';
import { freshEsimGoState } from './state.ts';

export interface EsimGoFake {
  /** The API base, as ESIMGO_API_URL takes it: `<origin>/v2.4`. */
  url: string;
  origin: string;
  apiKey: string;
  control: EsimGoControl;
  app: Express;
  close(): Promise<void>;
}

/** Starts the eSIM Go fake (HTTP, or HTTPS with `tls`) on a free port unless one is given. */
export async function startEsimGoFake(options: EsimGoFakeOptions = {}): Promise<EsimGoFake> {
  const runtime = fakeRuntime(options, () => freshEsimGoState(options.balance ?? 10_000, options.callbackUrl ?? ''));
  const ctx: EsimGoContext = {
    ...runtime.context,
    settings: {
      apiKey: options.apiKey ?? randomBytes(20).toString('hex'),
      signatureEncoding: options.signatureEncoding ?? 'hex',
      refundsEnabled: options.refundsEnabled ?? false,
      iccidDigits: options.iccidDigits ?? 19,
      smdpAddress: options.smdpAddress ?? 'rsp.esim-go.example',
      rateLimit: options.rateLimit ?? { limit: 10, windowMs: 1000 },
    },
    // A copy: a price changed on one fake never reaches another.
    catalogue: structuredClone(options.catalogue ?? ESIM_GO_CATALOGUE),
  };
  if (options.callbackUrl !== undefined) ctx.state.organisation.callback_url = options.callbackUrl;
  const control: EsimGoControl = {
    ...runtime.control,
    install: (iccid) => settle(() => installEsim(ctx, iccid)),
    attach: (iccid) => attachEsim(ctx, iccid),
    useData: (iccid, bytes) => useData(ctx, iccid, bytes),
    deplete: (iccid) => depleteEsim(ctx, iccid),
    expire: (iccid) => settle(() => expireEsim(ctx, iccid)),
    setProfileStatus: (iccid, status) => settle(() => setProfileStatus(ctx, iccid, status)),
    setBundleState: (iccid, state) => settle(() => setBundleState(ctx, iccid, state)),
    setCallbackUrl: (url) => {
      ctx.state.organisation.callback_url = url;
      ctx.save();
    },
    setRefundsEnabled: (enabled) => {
      ctx.settings.refundsEnabled = enabled;
    },
    travel: (ms) =>
      settle(() => {
        ctx.clock.travel(ms);
        applyElapsedTime(ctx);
      }),
    esim: (iccid) => {
      const returned = ctx.state.returned?.[iccid];
      const esim = ctx.state.esims[iccid] ?? returned;
      return esim
        ? { ...esimDetails(esim, false), ...bundlesBody(ctx, esim.assignments), history: structuredClone(esim.history), ...(returned && { returned: true }) }
        : undefined;
    },
    state: () => structuredClone(ctx.state),
    setPrice: (bundle, price) => {
      const found = bundleOf(ctx, bundle);
      if (!found) throw new Error(`no bundle ${bundle}`);
      if (!(price >= 0)) throw new Error('a price is a number, at least 0');
      found.price = price;
    },
  };
  const app = createEsimGoApp(ctx, control, runtime.checks);
  const { server, close } = await runtime.serve(app);
  return { url: `${server.origin}/v2.4`, origin: server.origin, apiKey: ctx.settings.apiKey, control, app, close };
}
