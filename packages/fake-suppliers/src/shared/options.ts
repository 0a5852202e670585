import type { TlsOptions } from './server.ts';

/** Options both fakes take. */
export interface CommonFakeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Serve HTTPS; generate the pair at test time, never commit a key. */
  tls?: TlsOptions;
  /** Account balance in USD. */
  balance?: number;
  /** ICCID length: 19 as in both vendors' examples, or 20. */
  iccidDigits?: 19 | 20;
  /** The SM-DP+ address the eSIMs carry. */
  smdpAddress?: string;
  /** Keep state in this JSON file across restarts (memory only when absent). */
  stateFile?: string;
  /** Record every incoming request that does not match the vendor's documents (default true). */
  checkRequests?: boolean;
  /** Record every answer that does not match the vendor's documents (default false; the fakes' own tests turn it on). */
  checkResponses?: boolean;
  /** Send callbacks (default true); off drops them, so polling is the only path. */
  callbacks?: boolean;
  callbackTimeoutMs?: number;
}
