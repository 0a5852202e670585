import { initContract } from '@ts-rest/core';
import { listOf } from '../schemas/list.ts';
import { requestLogSchema } from '../schemas/request-log.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

/** The account's recent requests, kept by the gateway (docs/decisions/0045-request-log.md). */
export const requestLogRoutes = c.router({
  listRequestLogs: {
    path: '/v1/request_logs',
    summary: 'List recent requests',
    description:
      'Lists the requests the account made in the key’s environment, newest first: method, path, route, status, `Request-Id`, ' +
      'duration and key. At most the last 1,000 requests of the last 24 hours are kept; a request appears within about a second. ' +
      'Requests refused for their key (401) belong to no account and are not listed, nor are the calls to this list itself.',
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('RequestLogList', requestLogSchema) },
      {
        service: 'gateway',
        scopes: ['keys:read'],
        errors: ['invalid_parameter'],
      },
    ),
  },
});
