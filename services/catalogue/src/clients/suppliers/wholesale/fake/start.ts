import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { createFakeSupplierApp, createFakeSupplierState, healthyFaults, type FakeSupplierState } from './app.ts';

export interface StartFakeSupplierOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** The key callers must present; a random one by default. */
  apiKey?: string;
}

export interface FakeSupplier {
  /** Base URL to configure as SUPPLIER_URL. */
  url: string;
  apiKey: string;
  /** Live state: flip `state.faults` to make it fail, read `state.requests` to count calls. */
  state: FakeSupplierState;
  /** Back to healthy, counters cleared. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts the fake wholesale supplier: for tests, and for `pnpm start` with the opt-in flag. */
export function startFakeSupplier(options: StartFakeSupplierOptions = {}): Promise<FakeSupplier> {
  const apiKey = options.apiKey ?? `fake_${randomBytes(16).toString('hex')}`;
  const host = options.host ?? '127.0.0.1';
  const state = createFakeSupplierState(apiKey);
  const app = createFakeSupplierApp(state);
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(options.port ?? 0, host);
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : options.port;
      resolve({
        url: `http://${host}:${port}`,
        apiKey,
        state,
        reset() {
          state.faults = healthyFaults();
          state.requests.clear();
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
