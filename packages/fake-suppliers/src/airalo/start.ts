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
import { createAiraloApp } from './app.ts';
import { AIRALO_CATALOGUE, packageIndex } from './catalogue.ts';
import { AIRALO_RATE_LIMITS, type AiraloContext, type AiraloFakeOptions } from './context.ts';
import { applyElapsedTime, attachSim, depleteSim, expireSim, installSim, useData } from './lifecycle.ts';
import { usageBody } from './presenters.ts';
import { freshAiraloState, type AiraloState } from './state.ts';

export interface AiraloControl extends FakeControl {
  /** A copy of everything the fake remembers (orders, eSIMs, refunds, opt-ins, balance). */
  state(): AiraloState;
}

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
  const store = new JsonFileStore<AiraloState>(options.stateFile);
  const catalogue = options.catalogue ?? AIRALO_CATALOGUE;
  const sender: CallbackSender = { enabled: options.callbacks ?? true, timeoutMs: options.callbackTimeoutMs ?? 5000 };
  const faults: FaultState = { delayMs: 0 };
  // The server is made after the app, which needs the context that names the server's origin.
  const listener: { server?: FakeServer } = {};
  const ctx: AiraloContext = {
    settings: {
      clientId: options.clientId ?? `fake-${randomBytes(6).toString('hex')}`,
      clientSecret: options.clientSecret ?? randomBytes(24).toString('hex'),
      tokenTtlSeconds: options.tokenTtlSeconds ?? 86_400,
      iccidDigits: options.iccidDigits ?? 19,
      smdpAddress: options.smdpAddress ?? 'lpa.airalo.example',
      checkWebhookOnOptIn: options.checkWebhookOnOptIn ?? true,
      rateLimits: { ...AIRALO_RATE_LIMITS, ...options.rateLimits },
    },
    state: store.load(() => freshAiraloState(options.balance ?? 10_000)),
    catalogue,
    packages: packageIndex(catalogue),
    clock: new Clock(),
    recorder: new Recorder(),
    limiter: new FixedWindowLimiter(),
    sender,
    faults,
    origin: () => listener.server!.origin,
    save: () => store.save(ctx.state),
  };

  let downTimer: NodeJS.Timeout | undefined;
  const control: AiraloControl = {
    install: (iccid) => settle(() => installSim(ctx, iccid)),
    attach: (iccid) => settle(() => attachSim(ctx, iccid)),
    useData: (iccid, bytes) => useData(ctx, iccid, bytes),
    deplete: (iccid) => depleteSim(ctx, iccid),
    expire: (iccid) => expireSim(ctx, iccid),
    setCallbacks: (enabled) => {
      sender.enabled = enabled;
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
    travel: async (ms) => {
      ctx.clock.travel(ms);
      await applyElapsedTime(ctx);
    },
    esim: (iccid) => {
      const sim = ctx.state.sims[iccid];
      return sim ? { ...structuredClone(sim), usage: usageBody(ctx, sim) } : undefined;
    },
    state: () => structuredClone(ctx.state),
  };

  const app = createAiraloApp(ctx, control, { requests: options.checkRequests ?? true, responses: options.checkResponses ?? false });
  const server = new FakeServer(app, { host: options.host, tls: options.tls });
  listener.server = server;
  await server.listen(options.port ?? 0);
  return {
    url: `${server.origin}/v2`,
    origin: server.origin,
    credentials: { clientId: ctx.settings.clientId, clientSecret: ctx.settings.clientSecret },
    control,
    app,
    close: async () => {
      clearTimeout(downTimer);
      await server.close();
    },
  };
}
