import type { Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { Forwarder } from '../clients/forwarder.ts';
import type { ResponseCache } from '../domain/response-cache.ts';
import type { VersionTimetable } from '../domain/versions.ts';
import type { EdgeState } from '../context.ts';
import type { BodyDeadline } from '../use-cases/read-body.ts';

/** What the edge's steps share; each step takes only the part it uses. */
export interface EdgeDeps {
  knex: Knex;
  logger: Logger;
  forwarder: Forwarder;
  edge: EdgeState;
  /** Reads their service marked cacheable, kept for their max-age. */
  responses: ResponseCache;
  rateLimitPerMinute: number;
  timetable: VersionTimetable;
  deprecationLink: string;
  idempotency: { retentionMs: number };
  /** The whole body within this of the read's start (REQUEST_BODY_TIMEOUT_MS, record 0201). */
  bodyDeadline: BodyDeadline;
}
