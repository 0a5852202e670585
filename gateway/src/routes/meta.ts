import {
  ApiError,
  SERVICE_VERSIONS,
  errorCodeItem,
  errorCodeItems,
  eventTypeItems,
  isErrorCode,
  type Environment,
  type ServiceVersion,
} from '@connectivity/contracts';
import { toPage, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { listKeys, toApiKey } from '../db/keys-repository.ts';
import { listRequestLogs } from '../db/request-log-repository.ts';

/** Who asks, and what the request carried, as the gateway's own routes need it. */
export interface MetaContext {
  accountId: string;
  environment: Environment;
  version: ServiceVersion;
  params: Record<string, string>;
  query: Record<string, unknown>;
}

export interface MetaDeps {
  db: Knex;
  cursors: CursorCodec;
  /** Older requests are never listed, whether or not the purge has reached them. */
  requestLogRetentionMs: number;
}

const pageQuery = z.object({ cursor: z.string().optional(), limit: z.coerce.number().int().min(1).max(100).default(20) });
const indexPosition = z.number().int().min(0);
const idPosition = z.string().min(1);
const timePosition = z.object({ t: z.number().int(), i: z.string().min(1) });

/** A page of a fixed catalogue, in catalogue order; the cursor holds the index of the next item. */
function staticPage<T>(items: readonly T[], list: string, ctx: MetaContext, cursors: CursorCodec) {
  const { cursor, limit } = pageQuery.parse(ctx.query);
  const binding = { list, account: ctx.accountId, environment: ctx.environment };
  const start = cursor === undefined ? 0 : cursors.decode(cursor, binding, indexPosition);
  const fetched = items.slice(start, start + limit + 1).map((item, i) => ({ item, index: start + i }));
  const page = toPage(fetched, limit, (last) => cursors.encode(last.index + 1, binding));
  return { ...page, data: page.data.map(({ item }) => item) };
}

/** The endpoints the gateway answers itself (route metadata `service: 'gateway'`), by route key. */
export async function answerMetaRoute(key: string, ctx: MetaContext, deps: MetaDeps): Promise<{ status: number; body: unknown }> {
  switch (key) {
    case 'getVersion':
      return { status: 200, body: { object: 'version', version: ctx.version, serves: [...SERVICE_VERSIONS] } };
    case 'listEventTypes':
      return { status: 200, body: staticPage(eventTypeItems(), 'event_types', ctx, deps.cursors) };
    case 'listErrorCodes':
      return { status: 200, body: staticPage(errorCodeItems(), 'error_codes', ctx, deps.cursors) };
    case 'getErrorCode': {
      const code = ctx.params.code;
      if (!isErrorCode(code)) {
        throw new ApiError('resource_not_found', { param: 'code', message: `No error code \`${code ?? ''}\`; see GET /v1/error_codes.` });
      }
      return { status: 200, body: errorCodeItem(code) };
    }
    case 'listApiKeys': {
      const { cursor, limit } = pageQuery.parse(ctx.query);
      const binding = { list: 'api_keys', account: ctx.accountId, environment: ctx.environment };
      const afterId = cursor === undefined ? undefined : deps.cursors.decode(cursor, binding, idPosition);
      const rows = await listKeys(deps.db, ctx.accountId, ctx.environment, { afterId, limit: limit + 1 });
      const page = toPage(rows, limit, (last) => deps.cursors.encode(last.id, binding));
      return { status: 200, body: { ...page, data: page.data.map(toApiKey) } };
    }
    case 'listRequestLogs': {
      const { cursor, limit } = pageQuery.parse(ctx.query);
      const binding = { list: 'request_logs', account: ctx.accountId, environment: ctx.environment };
      const after = cursor === undefined ? undefined : deps.cursors.decode(cursor, binding, timePosition);
      const rows = await listRequestLogs(deps.db, ctx, {
        after: after && { timeMs: after.t, id: after.i },
        since: new Date(Date.now() - deps.requestLogRetentionMs),
        limit: limit + 1,
      });
      const page = toPage(rows, limit, (last) => deps.cursors.encode({ t: last.timeMs, i: last.row.id }, binding));
      return { status: 200, body: { ...page, data: page.data.map(({ row }) => row) } };
    }
    default:
      throw new Error(`the gateway has no handler for route ${key}`);
  }
}
