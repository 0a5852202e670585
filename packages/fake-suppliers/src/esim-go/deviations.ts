import { alsoOfType, at, chain, type Deviation, type JsonSchema } from '../shared/openapi/validator.ts';

/** EG-8: the five columns the `filterBy` enum names in one string. */
export const ESIM_GO_FILTER_COLUMNS = ['iccid', 'customerRef', 'lastAction', 'actionDate', 'assignedDate'];

const listOf = (schema: JsonSchema): JsonSchema => ({ type: 'array', items: schema });
const oneOrListOf = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, listOf(schema)] });
const number = alsoOfType('number');

/** Every place the fakes read eSIM Go's document other than literally, each tied to vendor/esim-go/SOURCE.md. */
export const ESIM_GO_DEVIATIONS: Deviation[] = [
  {
    id: 'EG-4',
    why: 'catalogue prices typed integer; real prices are decimals',
    method: 'GET',
    path: '/catalogue',
    target: 'response',
    status: 200,
    schema: at('/items/properties/price', number),
  },
  {
    id: 'EG-4',
    why: 'bundle price typed integer',
    method: 'GET',
    path: '/catalogue/bundle/{name}',
    target: 'response',
    status: 200,
    schema: at('/properties/price', number),
  },
  {
    id: 'EG-4',
    why: 'balance and test credit typed integer; real balances are decimals',
    method: 'GET',
    path: '/organisation',
    target: 'response',
    status: 200,
    schema: chain(at('/properties/balance', number), at('/properties/testCredit', number)),
  },
  {
    id: 'EG-4',
    why: 'top-up balance typed integer',
    method: 'POST',
    path: '/organisation/balance',
    target: 'response',
    status: 200,
    schema: chain(at('/properties/balance', number), at('/properties/amount', number)),
  },
  {
    id: 'EG-20',
    why: 'oneOf of two schemas that require nothing: every body matches both, so oneOf can never hold',
    method: 'POST',
    path: '/orders',
    target: 'response',
    status: 200,
    schema: (s) => ({ anyOf: s.oneOf }),
  },
  {
    id: 'EG-5',
    why: '"Response data is paginated" but the 200 schema is one order',
    method: 'GET',
    path: '/orders',
    target: 'response',
    status: 200,
    schema: listOf,
  },
  {
    id: 'EG-6',
    why: 'schema is an object, the example an array',
    method: 'GET',
    path: '/esims/{iccid}/history',
    target: 'response',
    status: 200,
    schema: listOf,
  },
  { id: 'EG-7', why: 'one reference can cover several eSIMs', method: 'GET', path: '/esims/assignments', target: 'response', status: 200, schema: oneOrListOf },
  {
    id: 'EG-7',
    why: 'CSV is the prose default, undeclared',
    method: 'GET',
    path: '/esims/assignments',
    target: 'response',
    status: 200,
    mediaType: { from: 'text/csv', to: null },
  },
  {
    id: 'EG-8',
    why: 'filterBy enum is one string naming five columns',
    method: 'GET',
    path: '/esims',
    target: 'request',
    parameter: 'filterBy',
    schema: (s) => ({ ...s, enum: ESIM_GO_FILTER_COLUMNS }),
  },
  {
    id: 'EG-11',
    why: 'errors declared text/plain on POST /orders; every eSIM Go error is JSON {"message"}',
    method: 'POST',
    path: '/orders',
    target: 'response',
    status: 400,
    mediaType: { from: 'application/json', to: 'text/plain' },
  },
  {
    id: 'EG-11',
    why: '503 "Processing" declared text/plain on POST /orders (JSON on the other endpoints); every eSIM Go error is JSON {"message"}',
    method: 'POST',
    path: '/orders',
    target: 'response',
    status: 503,
    mediaType: { from: 'application/json', to: 'text/plain' },
  },
];
