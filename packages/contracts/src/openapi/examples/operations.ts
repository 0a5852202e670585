import { errorLink } from '../../errors/api-error.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors/catalogue.ts';
import { errorCodeItems } from '../../errors/items.ts';
import { DEFAULT_ERROR_MESSAGES } from '../../errors/messages.ts';
import type { ErrorResponse } from '../../errors/schema.ts';
import { eventTypeItems } from '../../events/items.ts';
import type { Contract } from '../../routes/contract.ts';
import { CURRENT_SERVICE_VERSION, SERVICE_VERSIONS } from '../../schemas/enums.ts';
import { EVENT_EXAMPLES } from './events.ts';
import {
  activeEsimExample,
  apiKeyExample,
  balanceExample,
  balanceTransactionExamples,
  bundleExamples,
  EXAMPLE_IDS,
  EXAMPLE_TIME,
  esimExample,
  orderExample,
  refundExample,
  requestLogExample,
  secondEsimExample,
  testClockExample,
  webhookAttemptExamples,
  webhookEndpointExample,
  webhookEndpointWithSecretExample,
} from './resources.ts';
import { esimBundleExamples, topupExample, topupOfferExamples } from './topups.ts';

/** An operationId of the public contract (the key of its route). */
export type RouteKey = { [G in keyof Contract]: keyof Contract[G] & string }[keyof Contract];

/** What the reference shows for one operation: its request (body and parameters) and its success answer. */
export interface OperationExample {
  body?: unknown;
  /** Path, query and header parameters by name. */
  parameters?: Record<string, unknown>;
  /** The success answer by media type (JSON unless named). */
  response: unknown;
  responseMedia?: Record<string, string>;
  /** The parameter an invalid or missing value is reported for, as this operation's 400s name it. */
  param?: string;
}

const NEXT_CURSOR = 'eyJwIjoyLCJiIjoiYTFjNGU5In0.kJ3vXq8mT2sYb7Lw0pRzNf6hUe1cAd9G';

function list<T>(data: T[], hasMore = false) {
  return { object: 'list', data, has_more: hasMore, next_cursor: hasMore ? NEXT_CURSOR : null };
}

const page = { limit: 20 };
const esimPath = { id: EXAMPLE_IDS.esim };
const webhookPath = { id: EXAMPLE_IDS.webhookEndpoint };
const clockPath = { id: EXAMPLE_IDS.testClock };
const sse = (events: (typeof EVENT_EXAMPLES)[keyof typeof EVENT_EXAMPLES][]) =>
  ['retry: 1000', '', ...events.flatMap((event) => [`id: ${event.id}`, `event: ${event.type}`, `data: ${JSON.stringify(event)}`, '']), ': keepalive', ''].join(
    '\n',
  );

/** A QR code of a sandbox activation code, as `Accept: image/svg+xml` answers it (cropped to its finder pattern). */
const QR_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 41 41" shape-rendering="crispEdges"><path fill="#fff" d="M0 0h41v41H0z"/>' +
  '<path stroke="#000" d="M4 4.5h7m1 0h1m2 0h3M4 5.5h1m5 0h1m2 0h2M4 6.5h1m1 0h3m1 0h1"/></svg>';

/** Every public operation's example, by operationId: a missing one does not compile. */
export const OPERATION_EXAMPLES: Record<RouteKey, OperationExample> = {
  getVersion: { response: { object: 'version', version: CURRENT_SERVICE_VERSION, serves: [...SERVICE_VERSIONS] } },
  listEventTypes: { parameters: { limit: 2 }, response: list(eventTypeItems().slice(0, 2), true), param: 'limit' },
  listErrorCodes: { parameters: { limit: 3 }, response: list(errorCodeItems().slice(0, 3), true), param: 'limit' },
  getErrorCode: { parameters: { code: 'invalid_parameter' }, response: errorCodeItems().find((item) => item.code === 'invalid_parameter') },
  getOpenApiDocument: {
    response: { openapi: '3.1.0', info: { title: 'Connectivity Service API', version: CURRENT_SERVICE_VERSION }, paths: {}, webhooks: {} },
  },
  listApiKeys: { parameters: page, response: list([apiKeyExample]), param: 'limit' },
  listRequestLogs: { parameters: { limit: 1 }, response: list([requestLogExample], true), param: 'cursor' },
  listBundles: { parameters: { countries: 'FR', region: 'europe', limit: 2 }, response: list(bundleExamples, true), param: 'countries' },
  listEsims: { parameters: { limit: 2, metadata: { order_ref: 'A-1001' } }, response: list([esimExample, secondEsimExample]), param: 'limit' },
  createEsim: { body: { bundle: 'esim_5GB_30D_EU', quantity: 2, metadata: { order_ref: 'A-1001' } }, response: orderExample, param: 'bundle' },
  getEsim: { parameters: esimPath, response: esimExample },
  updateEsim: {
    parameters: esimPath,
    body: { state: 'suspended' },
    response: { ...activeEsimExample, state: 'suspended', updated_at: EXAMPLE_TIME + 7_200 },
    param: 'state',
  },
  getEsimQrCode: { parameters: esimPath, response: undefined, responseMedia: { 'image/svg+xml': QR_SVG } },
  listEsimTopupOffers: { parameters: { ...esimPath, limit: 20 }, response: list(topupOfferExamples), param: 'limit' },
  createEsimTopup: { parameters: esimPath, body: { bundle: 'esim_20GB_30D_EU' }, response: topupExample, param: 'bundle' },
  listEsimBundles: { parameters: { ...esimPath, limit: 20 }, response: list(esimBundleExamples), param: 'limit' },
  getBalance: { response: balanceExample },
  listBalanceTransactions: {
    parameters: { limit: 20, type: 'order', source: EXAMPLE_IDS.liveOrder },
    response: list(balanceTransactionExamples.filter((item) => item.type === 'order')),
    param: 'type',
  },
  listRefunds: { parameters: { limit: 20, status: 'succeeded', esim: EXAMPLE_IDS.liveEsim }, response: list([refundExample]), param: 'status' },
  getRefund: { parameters: { id: EXAMPLE_IDS.refund }, response: refundExample },
  settleTestRefund: {
    parameters: { id: EXAMPLE_IDS.refund },
    body: { status: 'succeeded' },
    response: refundExample,
    param: 'status',
  },
  setTestBalance: {
    body: { available_cents: 2_000, low_balance_threshold_cents: 500 },
    response: { ...balanceExample, environment: 'test', available_cents: 2_000, low_balance_threshold_cents: 500, simulated: true },
    param: 'available_cents',
  },
  listEvents: { parameters: { limit: 2 }, response: list([EVENT_EXAMPLES['esim.usage.threshold'], EVENT_EXAMPLES['esim.released']], true), param: 'cursor' },
  streamEvents: {
    parameters: { types: 'esim.*', 'Last-Event-ID': EXAMPLE_IDS.event },
    response: undefined,
    responseMedia: { 'text/event-stream': sse([EVENT_EXAMPLES['esim.installed'], EVENT_EXAMPLES['esim.activated']]) },
    param: 'Last-Event-ID',
  },
  replayEvents: {
    body: { since: EXAMPLE_TIME - 3_600 },
    response: { object: 'replay', queued: 12, endpoints: 2, since: EXAMPLE_TIME - 3_600, event: null },
    param: 'since',
  },
  createWebhook: {
    body: { url: webhookEndpointExample.url, enabled_events: webhookEndpointExample.enabled_events, description: 'Order fulfilment' },
    response: webhookEndpointWithSecretExample,
    param: 'url',
  },
  listWebhooks: { parameters: page, response: list([webhookEndpointExample]), param: 'limit' },
  getWebhook: { parameters: webhookPath, response: webhookEndpointExample },
  updateWebhook: {
    parameters: webhookPath,
    body: { enabled_events: ['*'] },
    response: { ...webhookEndpointExample, enabled_events: ['*'], updated_at: EXAMPLE_TIME + 600 },
    param: 'enabled_events',
  },
  deleteWebhook: { parameters: webhookPath, response: { object: 'webhook_endpoint', id: EXAMPLE_IDS.webhookEndpoint, deleted: true } },
  listWebhookDeliveries: { parameters: { ...webhookPath, limit: 2 }, response: list(webhookAttemptExamples), param: 'limit' },
  simulateUsage: { body: { esim: EXAMPLE_IDS.esim, bytes: 2_500_000_000 }, response: activeEsimExample, param: 'bytes' },
  triggerTestError: { body: { code: 'supplier_unavailable', message: 'The supplier did not answer.' }, response: undefined, param: 'code' },
  createTestClock: { body: { name: 'renewals', frozen_time: 1_798_761_600 }, response: testClockExample, param: 'frozen_time' },
  listTestClocks: { parameters: page, response: list([testClockExample]), param: 'limit' },
  getTestClock: { parameters: clockPath, response: testClockExample },
  deleteTestClock: { parameters: clockPath, response: { object: 'test_clock', id: EXAMPLE_IDS.testClock, deleted: true } },
  advanceTestClock: {
    parameters: clockPath,
    body: { frozen_time: 1_801_440_000 },
    response: { ...testClockExample, frozen_time: 1_801_440_000 },
    param: 'frozen_time',
  },
};

/** Parameters many operations share, by name: used where an operation's example names none. */
export const PARAMETER_EXAMPLES: Record<string, unknown> = {
  'Idempotency-Key': '5f0c2e4a-8b7d-4c1e-9a36-2d8f1b7e6c40',
  'Service-Version': CURRENT_SERVICE_VERSION,
  cursor: NEXT_CURSOR,
  limit: 20,
  last_event_id: EXAMPLE_IDS.event,
};

/** The error object of `code` as `operation` answers it, with the link under `baseUrl`. */
export function errorExample(code: ErrorCode, operation: OperationExample, baseUrl: string): ErrorResponse {
  const needsParam = code === 'missing_parameter' || code === 'invalid_parameter';
  const param = needsParam ? (operation.param ?? 'Idempotency-Key') : undefined;
  const message = param === undefined ? DEFAULT_ERROR_MESSAGES[code] : `${code === 'missing_parameter' ? 'Missing' : 'Invalid'} \`${param}\`.`;
  return {
    error: {
      type: ERROR_CATALOGUE[code].type,
      code,
      message,
      ...(param !== undefined && { param }),
      link: errorLink(baseUrl, code),
    },
  };
}
