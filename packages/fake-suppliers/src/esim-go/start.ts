import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import type { CallbackSender } from '../shared/callbacks.ts';
import { Clock } from '../shared/clock.ts';
import type { FakeControl } from '../shared/control.ts';
import type { FaultState } from '../shared/faults.ts';
import { JsonFileStore } from '../shared/persistence.ts';
import { FixedWindowLimiter } from '../shared/rate-limiter.ts';
import { Recorder, settle } from '../shared/recorder.ts';
import { FakeServer } from '../shared/server.ts';
import { createEsimGoApp } from './app.ts';
import { ESIM_GO_CATALOGUE } from './catalogue.ts';
import type { EsimGoContext, EsimGoFakeOptions } from './context.ts';
import { applyElapsedTime, attachEsim, depleteEsim, expireEsim, installEsim, useData } from './lifecycle.ts';
import { bundlesBody, esimDetails } from './presenters.ts';
import { freshEsimGoState, type EsimGoState } from './state.ts';

export interface EsimGoControl extends FakeControl {
  /** The callback URL of the portal's API Details page (eSIM Go has no API for it). */
  setCallbackUrl(url: string): void;
  /** A copy of everything the fake remembers (organisation, eSIMs, orders, inventory). */
  state(): EsimGoState;
}

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
  const store = new JsonFileStore<EsimGoState>(options.stateFile);
  const sender: CallbackSender = { enabled: options.callbacks ?? true, timeoutMs: options.callbackTimeoutMs ?? 5000 };
  const faults: FaultState = { delayMs: 0 };
  // The server is made after the app, which needs the context that names the server's origin.
  const listener: { server?: FakeServer } = {};
  const ctx: EsimGoContext = {
    settings: {
      apiKey: options.apiKey ?? randomBytes(20).toString('hex'),
      signatureEncoding: options.signatureEncoding ?? 'hex',
      refundsEnabled: options.refundsEnabled ?? true,
      iccidDigits: options.iccidDigits ?? 19,
      smdpAddress: options.smdpAddress ?? 'rsp.esim-go.example',
      rateLimit: options.rateLimit ?? { limit: 10, windowMs: 1000 },
    },
    state: store.load(() => freshEsimGoState(options.balance ?? 10_000, options.callbackUrl ?? '')),
    catalogue: options.catalogue ?? ESIM_GO_CATALOGUE,
    clock: new Clock(),
    recorder: new Recorder(),
    limiter: new FixedWindowLimiter(),
    sender,
    faults,
    origin: () => listener.server!.origin,
    save: () => store.save(ctx.state),
  };
  if (options.callbackUrl !== undefined) ctx.state.organisation.callback_url = options.callbackUrl;

  let downTimer: NodeJS.Timeout | undefined;
  const control: EsimGoControl = {
    install: (iccid) => settle(() => installEsim(ctx, iccid)),
    attach: (iccid) => attachEsim(ctx, iccid),
    useData: (iccid, bytes) => useData(ctx, iccid, bytes),
    deplete: (iccid) => depleteEsim(ctx, iccid),
    expire: (iccid) => settle(() => expireEsim(ctx, iccid)),
    setCallbacks: (enabled) => {
      sender.enabled = enabled;
    },
    setCallbackUrl: (url) => {
      ctx.state.organisation.callback_url = url;
      ctx.save();
    },
    callbacks: () => [...ctx.recorder.callbacks],
    fault: async (fault) => {
      if (fault.kind === 'down') {
        await listener.server!.goDown();
        if (fault.forMs) downTimer = setTimeout(() => void listener.server!.comeUp(), fault.forMs);
      } else if (fault.kind === 'slow') faults.delayMs = fault.delayMs;
      else faults.status = { status: fault.status, remaining: fault.count ?? Number.POSITIVE_INFINITY };
    },
    clearFaults: async () => {
      clearTimeout(downTimer);
      faults.delayMs = 0;
      faults.status = undefined;
      await listener.server!.comeUp();
    },
    counters: () => structuredClone(ctx.recorder.counters),
    violations: () => ({ requests: [...ctx.recorder.requestViolations], responses: [...ctx.recorder.responseViolations] }),
    resetObservations: async () => {
      ctx.recorder.reset();
      ctx.limiter.clear();
      await control.clearFaults();
    },
    travel: (ms) =>
      settle(() => {
        ctx.clock.travel(ms);
        applyElapsedTime(ctx);
      }),
    esim: (iccid) => {
      const esim = ctx.state.esims[iccid];
      return esim ? { ...esimDetails(esim, false), ...bundlesBody(ctx, esim.assignments), history: structuredClone(esim.history) } : undefined;
    },
    state: () => structuredClone(ctx.state),
  };

  const app = createEsimGoApp(ctx, control, { requests: options.checkRequests ?? true, responses: options.checkResponses ?? false });
  const server = new FakeServer(app, { host: options.host, tls: options.tls });
  listener.server = server;
  await server.listen(options.port ?? 0);
  return {
    url: `${server.origin}/v2.4`,
    origin: server.origin,
    apiKey: ctx.settings.apiKey,
    control,
    app,
    close: async () => {
      clearTimeout(downTimer);
      await server.close();
    },
  };
}
