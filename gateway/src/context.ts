// The types the app, the routes, the use cases and the background work share: here, apart from
// service.ts (which wires them), so nothing imports the wiring back and no import makes a cycle.
import type { ServiceRuntime } from '@connectivity/platform';
import type { Config } from './config.ts';
import type { KeyReservations } from './db/idempotency-repository.ts';
import type { KeyCache } from './db/key-cache.ts';
import type { KeyUse } from './db/key-use.ts';
import type { RateLimiter } from './db/rate-limiter.ts';
import type { RequestLog } from './db/request-log-buffer.ts';
import type { BodyReads } from './domain/body-reads.ts';
import type { KeyChangeNotice } from './domain/key-change.ts';
import type { OpenStreams } from './domain/open-streams.ts';
import type { SpentBudgets } from './domain/spent-budgets.ts';

/**
 * What the edge keeps in process so a request needs no database round trip in steady state. Made
 * without starting anything: the workers and the consumer below keep it current.
 */
export interface EdgeState {
  /** API keys in memory, dropped on every instance by the key-change notices. */
  keys: KeyCache;
  /** The event streams passed on now, closed when their key changes. */
  streams: OpenStreams;
  keyUse: KeyUse;
  /** The per-account request log's buffer, written in batches. */
  requestLog: RequestLog;
  rateLimiter: RateLimiter;
  /** Address buckets seen spent: refused from memory until their window ends. */
  spentBudgets: SpentBudgets;
  /** Idempotency keys noted against the request they were first used for, group-committed. */
  reservations: KeyReservations;
  /** Announces a key or account change to every instance (this one first). */
  keysChanged: (notice: KeyChangeNotice) => void;
  /** Request bodies being read per key, capped (BODY_READS_PER_KEY, record 0201). */
  bodyReads: BodyReads;
}

/** What the gateway's app and background work share. */
export interface GatewayContext extends ServiceRuntime {
  config: Config;
  edge: EdgeState;
  /** The operator admin API: its token (ADMIN_TOKEN, else a random one) and, once it listens, its URL. */
  admin: { token: string; url: string };
}
