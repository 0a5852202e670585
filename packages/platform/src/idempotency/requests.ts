import { randomUUID } from 'node:crypto';
import { ApiError, INTERNAL_HEADERS } from '@connectivity/contracts';
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { OneStatement } from '../db/one-statement.ts';
import type { Logger } from '../logger.ts';
import { domainMetrics } from '../telemetry/metrics.ts';
import { requestFingerprint } from './fingerprint.ts';
import { idempotencyOwner } from './owner.ts';
import { groupCommit } from '../work/batcher.ts';
import { isReplayable, type ClaimInput, type ClaimOutcome, type ClaimRef, type IdempotencyStore, type StoredResponse } from './store.ts';

const MAX_CLAIM_BATCH = 32;

/**
 * Seals answers at rest (they may show a secret once, such as a webhook signing secret); the
 * context binds a sealed answer to its record.
 */
export interface AnswerSealer {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** The claim a request holds while it runs, for the transaction that makes its change. */
interface HeldClaim {
  db: Knex;
  store: IdempotencyStore;
  ref: ClaimRef;
  baseUrl: string;
  res: Response;
  sealer: AnswerSealer | undefined;
  /** The answer was recorded in a transaction that committed: nothing is left to settle. */
  committed: boolean;
}

const sealContext = (ref: ClaimRef) => `idempotency:${ref.keyId}:${ref.idempotencyKey}`;
const sealed = (claim: Pick<HeldClaim, 'sealer' | 'ref'>, body: string) => (claim.sealer ? claim.sealer.seal(body, sealContext(claim.ref)) : body);

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** The answer to a duplicate that arrives while the first request is still running. */
export function inProgress(res: Response): ApiError {
  res.setHeader('Retry-After', '1');
  return new ApiError('idempotency_key_reused', {
    param: 'Idempotency-Key',
    message: 'A request with this Idempotency-Key is still in progress. Retry later.',
  });
}

export const keyReused = (): ApiError =>
  new ApiError('idempotency_key_reused', {
    param: 'Idempotency-Key',
    message: 'This Idempotency-Key was already used for a different request (method, path or body). Use a new key.',
  });

/**
 * The Idempotency-Key claim a request holds while it runs, handed by its route to the use case
 * that makes the change (`claimOf(res)`): the use case records its answer with the change, in
 * the same transaction, so a retry after any crash gets this answer instead of a second change.
 * A request without a key (or a call the service makes itself) holds `NO_CLAIM`, which records
 * nothing. If the claim was lost (its lease ran out and a retry took it over), recording
 * refuses the transaction, and the retry's answer stands.
 */
export interface IdempotencyClaim {
  /**
   * The request the claim stands for (its owner, the account and environment of record 0200, in
   * `keyId`, and Idempotency-Key); undefined for `NO_CLAIM`.
   * A change that must be found again by a retry of the same request (a purchase made before its
   * transaction) is keyed on it.
   */
  readonly request?: { keyId: string; idempotencyKey: string } | undefined;
  /** Runs `work` in one transaction and records the answer it returns in that transaction. */
  answerInTransaction<T>(knex: Knex, status: number, work: (trx: Knex.Transaction) => Promise<T>, headers?: Record<string, string>): Promise<T>;
  /** Records an answer in `trx`, the transaction that makes the change. */
  record(trx: Knex.Transaction, status: number, body: unknown, headers?: Record<string, string>): Promise<void>;
  /** Records an answer in a change made by one statement (see `oneStatement`), refused with it if the claim was lost. */
  recordIn(statement: OneStatement, db: Knex, status: number, body: unknown, headers?: Record<string, string>): void;
  /** Records a refusal that follows a committed change (e.g. expired, then refused). */
  recordError(trx: Knex.Transaction, error: ApiError): Promise<void>;
}

function claimFor(held: HeldClaim | undefined): IdempotencyClaim {
  const claim: IdempotencyClaim = {
    request: held && { keyId: held.ref.keyId, idempotencyKey: held.ref.idempotencyKey },
    answerInTransaction: (knex, status, work, headers = {}) =>
      knex.transaction(async (trx) => {
        const body = await work(trx);
        await claim.record(trx, status, body, headers);
        return body;
      }),
    record: (trx, status, body, headers = {}) => recordHeld(held, trx, status, body, headers),
    recordIn: (statement, db, status, body, headers = {}) => recordHeldIn(held, statement, db, status, body, headers),
    recordError: (trx, error) => (held ? recordHeld(held, trx, error.status, error.toBody(held.baseUrl), {}) : Promise.resolve()),
  };
  return claim;
}

/** The claim of a request without an Idempotency-Key, or of a call the service makes for itself: records nothing. */
export const NO_CLAIM: IdempotencyClaim = claimFor(undefined);

const CLAIM_LOCAL = Symbol('idempotency claim');

/** The claim the request answered by `res` holds (`NO_CLAIM` when it holds none). */
export const claimOf = (res: Response): IdempotencyClaim => (res.locals[CLAIM_LOCAL as unknown as string] as IdempotencyClaim | undefined) ?? NO_CLAIM;

async function recordHeld(claim: HeldClaim | undefined, trx: Knex.Transaction, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
  if (!claim) return;
  const stored = await claim.store.complete(trx, claim.ref, { status, headers: { ...JSON_HEADERS, ...headers }, body: sealed(claim, JSON.stringify(body)) });
  if (!stored) throw inProgress(claim.res);
  trx.executionPromise.then(
    () => {
      claim.committed = true;
    },
    () => undefined,
  );
}

function recordHeldIn(claim: HeldClaim | undefined, statement: OneStatement, db: Knex, status: number, body: unknown, headers: Record<string, string>): void {
  if (!claim) return;
  const answer = { status, headers: { ...JSON_HEADERS, ...headers }, body: sealed(claim, JSON.stringify(body)) };
  statement.require(claim.store.completion(db, claim.ref, answer), () => inProgress(claim.res));
  statement.afterCommit(() => {
    claim.committed = true;
  });
}

export interface IdempotentRequestsOptions {
  db: Knex;
  store: IdempotencyStore;
  /** How long a claim outlives a crashed holder; renewed while the request runs. */
  leaseMs: number;
  retentionMs: number;
  baseUrl: string;
  logger: Logger;
  /** Seals the answers kept (see `AnswerSealer`); unset, they are kept as they are. */
  sealer?: AnswerSealer | undefined;
}

/**
 * Idempotency in the service that owns the change (Stripe's promise: a retry never repeats the
 * side effect, whatever crashed). A mutating call carrying `Idempotency-Key` and the caller's
 * key id claims (owner, Idempotency-Key) in this service's own table first, the owner being the
 * caller's account and environment (record 0200): a duplicate still
 * running is 409 with `Retry-After`, a completed one is answered as it was (`Idempotent-Replayed`).
 * Use cases record their answer in their change's transaction, through the `IdempotencyClaim`
 * their route hands them (`claimOf(res)`); an answer not recorded there (nothing changed) is
 * stored after the response when it is replayable, and the claim is given back otherwise.
 */
export function idempotentRequests(options: IdempotentRequestsOptions): RequestHandler {
  const { db, store } = options;
  // The claims of requests that arrive while one is being written share the next round trip.
  const claims = groupCommit<ClaimInput, ClaimOutcome>({
    name: `idempotency claim (${store.table})`,
    max: MAX_CLAIM_BATCH,
    keyOf: (input) => `${input.keyId}\u0000${input.idempotencyKey}`,
    one: (input) => store.claim(db, input),
    many: (inputs) => store.claimMany(db, inputs),
  });
  return async (req, res, next) => {
    const idempotencyKey = req.get('idempotency-key');
    const keyId = req.get(INTERNAL_HEADERS.keyId);
    if (req.method === 'GET' || req.method === 'HEAD' || !idempotencyKey || !keyId) {
      next();
      return;
    }
    // The key belongs to the account and environment, not the API key (record 0200): a retry
    // sent with a rotated key finds the first request's record.
    const accountId = req.get(INTERNAL_HEADERS.accountId);
    const environment = req.get(INTERNAL_HEADERS.environment);
    const owner = accountId && environment ? idempotencyOwner(accountId, environment) : keyId;
    try {
      const ref: ClaimRef = { keyId: owner, idempotencyKey, claimId: randomUUID() };
      const outcome = await claims.add({
        ...ref,
        fingerprint: requestFingerprint(req.method, req.originalUrl, rawBodyOf(req), req.body as unknown),
        leaseMs: options.leaseMs,
        retentionMs: options.retentionMs,
      });
      switch (outcome.kind) {
        case 'replay':
          domainMetrics.idempotencyReplayed('service');
          replay(res, outcome.response, options.sealer ? options.sealer.open(outcome.response.body, sealContext(ref)) : outcome.response.body);
          return;
        case 'mismatch':
          domainMetrics.idempotencyConflict('mismatch');
          next(keyReused());
          return;
        case 'in_progress':
          domainMetrics.idempotencyConflict('in_progress');
          next(inProgress(res));
          return;
        case 'claimed':
          break;
      }
      const stopHolding = store.hold(db, ref, options.leaseMs, (error) => options.logger.warn({ err: error }, 'renewing an idempotency claim failed'));
      const held: HeldClaim = { db, store, ref, baseUrl: options.baseUrl, res, sealer: options.sealer, committed: false };
      res.locals[CLAIM_LOCAL as unknown as string] = claimFor(held);
      /** The answer was stored before it was sent: the record is final. */
      let stored = false;
      /** The key was given back before the answer was sent (an answer that is not kept). */
      let released = false;
      const giveBack = () => store.release(db, ref).catch((error: unknown) => options.logger.warn({ err: error }, 'settling an idempotency claim failed'));
      const json = res.json.bind(res);
      // An answer not recorded with a change (an error, or a call that changes nothing) is stored
      // BEFORE it is sent, so a retry that follows the answer at once is replayed, never told
      // the first is still in progress.
      res.json = (body: unknown) => {
        if (held.committed) return json(body);
        const answer: StoredResponse = {
          status: res.statusCode,
          headers: { ...JSON_HEADERS },
          body: sealed({ sealer: options.sealer, ref }, JSON.stringify(body ?? null)),
        };
        for (const name of ['retry-after', 'cache-control']) {
          const value = res.getHeader(name);
          if (value !== undefined) answer.headers[name] = String(value);
        }
        if (!isReplayable(answer)) {
          // Not kept (a 5xx, a Retry-After): the key is given back BEFORE the answer is sent, so a
          // retry that follows it at once runs again, never told the first is still in progress.
          released = true;
          stopHolding();
          giveBack()
            .then(() => json(body))
            .catch((error: unknown) => options.logger.error({ err: error }, 'sending an answer failed'));
          return res;
        }
        // Conditional on the claim still being held: a claim lost meanwhile stores nothing.
        store
          .complete(db, ref, answer)
          .catch((error: unknown) => {
            options.logger.warn({ err: error }, 'storing an idempotent answer failed');
            return false;
          })
          .then((done) => {
            stored = done;
            json(body);
          })
          .catch((error: unknown) => options.logger.error({ err: error }, 'sending an answer failed'));
        return res;
      };
      const settle = () => {
        stopHolding();
        // Recorded with the change and committed, or stored before it was sent: final.
        if (held.committed || stored || released) return;
        // Nothing worth replaying was answered (or nothing at all: the client left): the key is given back.
        void giveBack();
      };
      res.once('close', settle);
      next();
    } catch (error) {
      next(error);
    }
  };
}

function replay(res: Response, response: StoredResponse, body: string): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.send(body);
}

/** The raw body bytes kept by the JSON parser (`verify`), as the gateway fingerprints them. */
export const rawBodyOf = (req: Request): Buffer | undefined => (req as Request & { rawBody?: Buffer }).rawBody;
