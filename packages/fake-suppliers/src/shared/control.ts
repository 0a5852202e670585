import express, { type Request, type Response, type Router } from 'express';
import type { Fault } from './faults.ts';
import type { CallbackRecord, Counters, ViolationRecord } from './recorder.ts';

/** The same operations on both fakes, as methods (tests) and as the `/_fake` router (people, scripts). */
export interface FakeControl {
  /** The handset downloaded and installed the profile. */
  install(iccid: string): Promise<void>;
  /** First network attach: the bundle starts. */
  attach(iccid: string): Promise<void>;
  /** The handset used this many bytes (the bundle starts first if it has not). */
  useData(iccid: string, bytes: number): Promise<void>;
  /** All data used up. */
  deplete(iccid: string): Promise<void>;
  /** The validity ended. */
  expire(iccid: string): Promise<void>;
  /** Off: every callback is dropped, so polling is the only way to learn a change. */
  setCallbacks(enabled: boolean): void;
  callbacks(): CallbackRecord[];
  fault(fault: Fault): Promise<void>;
  clearFaults(): Promise<void>;
  counters(): Counters;
  violations(): { requests: ViolationRecord[]; responses: ViolationRecord[] };
  /** Clears counters, violations, recorded callbacks, faults and rate-limit windows (not what was sold). */
  resetObservations(): Promise<void>;
  /** Moves the fake's clock forward (token and validity expiry without waiting). */
  travel(ms: number): Promise<void>;
  /** The vendor-shaped state of one eSIM, for assertions. */
  esim(iccid: string): Record<string, unknown> | undefined;
}

/** Answers a control call: its result (or `{ok: true}`) with 200, a thrown error as 400 `{error}`. */
export const runControl = (res: Response, work: () => unknown) => {
  Promise.resolve()
    .then(work)
    .then((result) => res.status(200).json(result ?? { ok: true }))
    .catch((error: unknown) => res.status(400).json({ error: error instanceof Error ? error.message : String(error) }));
};

/**
 * `PUT /_fake/prices/{name}` `{"price": n}`: the vendor changes what a product costs us, in its
 * own unit (both fakes; each checks the name and the amount).
 */
export function priceRoute(router: Router, setPrice: (name: string, price: number) => void): void {
  router.put('/prices/:name', express.json(), (req, res) =>
    runControl(res, () => {
      const price = (req.body as { price?: unknown } | undefined)?.price;
      if (typeof price !== 'number') throw new Error('price must be a number');
      setPrice(String(req.params.name), price);
    }),
  );
}

const iccidOf = (req: Request) => String(req.params.iccid);

/** `/_fake/...`: not part of any vendor API. */
export function controlRouter(control: FakeControl): Router {
  const router = express.Router();
  router.use(express.json());
  router.post('/esims/:iccid/install', (req, res) => runControl(res, () => control.install(iccidOf(req))));
  router.post('/esims/:iccid/attach', (req, res) => runControl(res, () => control.attach(iccidOf(req))));
  router.post('/esims/:iccid/use', (req, res) =>
    runControl(res, () => control.useData(iccidOf(req), Number((req.body as { bytes?: unknown } | undefined)?.bytes))),
  );
  router.post('/esims/:iccid/deplete', (req, res) => runControl(res, () => control.deplete(iccidOf(req))));
  router.post('/esims/:iccid/expire', (req, res) => runControl(res, () => control.expire(iccidOf(req))));
  router.get('/esims/:iccid', (req, res) => {
    const esim = control.esim(iccidOf(req));
    if (esim) res.json(esim);
    else res.status(404).json({ error: 'no such eSIM' });
  });
  router.put('/callbacks', (req, res) => runControl(res, () => control.setCallbacks((req.body as { enabled?: unknown }).enabled === true)));
  router.get('/callbacks', (_req, res) => res.json(control.callbacks()));
  router.put('/faults', (req, res) => {
    const fault = req.body as Fault;
    if (fault.kind !== 'down') return runControl(res, () => control.fault(fault));
    // Going down cuts every connection, this one too: answer first, then stop listening.
    res.set('Connection', 'close').on('finish', () => void control.fault(fault));
    res.json({ ok: true });
  });
  router.delete('/faults', (_req, res) => runControl(res, () => control.clearFaults()));
  router.get('/counters', (_req, res) => res.json(control.counters()));
  router.get('/violations', (_req, res) => res.json(control.violations()));
  router.post('/reset', (_req, res) => runControl(res, () => control.resetObservations()));
  router.post('/travel', (req, res) => runControl(res, () => control.travel(Number((req.body as { ms?: unknown }).ms))));
  return router;
}
