import { asText } from '../shared/text.ts';
import { alsoOfType, at, chain, isPlainObject, type Deviation, type JsonSchema } from '../shared/openapi/validator.ts';

/**
 * AIR-4/AIR-5: a JSON body sent where the document declares form fields is read as the form
 * fields it carries (scalars as their text, arrays as lists of texts), which is what Airalo's
 * own SDK sends.
 */
function jsonAsFormFields(body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      if (Array.isArray(value)) return [key, (value as unknown[]).map((v): unknown => asText(v) ?? v)];
      return [key, asText(value) ?? value];
    }),
  );
}

const formRequest = (id: string, method: string, path: string, declared: string): Deviation[] => [
  {
    id,
    why: 'the official SDK sends JSON where the document declares form fields',
    method,
    path,
    target: 'request',
    mediaType: { from: 'application/json', to: declared },
    body: jsonAsFormFields,
  },
  ...['multipart/form-data', 'application/x-www-form-urlencoded']
    .filter((type) => type !== declared)
    .map((type) => ({ id, why: 'the vendor takes either form encoding', method, path, target: 'request' as const, mediaType: { from: type, to: declared } })),
];

const optional =
  (...names: string[]) =>
  (schema: JsonSchema): JsonSchema => ({
    ...schema,
    required: ((schema.required as string[] | undefined) ?? []).filter((n) => !names.includes(n)),
  });

/** recycled_at is typed date-time but described (and exemplified) as "Y-m-d H:i:s". */
const withoutFormat = (schema: JsonSchema): JsonSchema => {
  const { format: _format, ...rest } = schema;
  return rest;
};

const PACKAGE = '/properties/data/items/properties/operators/items/properties/packages/items';
const TOPUP = '/properties/data/items';
/** Airalo's business error, e.g. code 73 (a recycled eSIM), as the top-up section's "x-422" responses give it. */
const CODE_AND_REASON: JsonSchema = {
  type: 'object',
  properties: { code: { type: 'integer' }, reason: { type: 'string' } },
  required: ['code', 'reason'],
};
const MIN_RRP = '/properties/data/items/properties/min_price/properties/recommended_retail_price';

/** Every place the fakes read Airalo's documents other than literally, each tied to vendor/airalo/SOURCE.md. */
export const AIRALO_DEVIATIONS: Deviation[] = [
  ...formRequest('AIR-4', 'POST', '/v2/token', 'application/x-www-form-urlencoded'),
  ...formRequest('AIR-5', 'POST', '/v2/orders', 'multipart/form-data'),
  ...formRequest('AIR-5', 'POST', '/v2/orders-async', 'multipart/form-data'),
  ...formRequest('AIR-5', 'POST', '/v2/refund', 'multipart/form-data'),
  ...formRequest('AIR-5', 'PUT', '/v2/sims/{sim_iccid}/brand', 'multipart/form-data'),
  ...formRequest('AIR-5', 'POST', '/v2/orders/topups', 'multipart/form-data'),
  {
    id: 'AIR-22',
    why: '`description` is in `required` though the document describes it as "Optional"',
    method: 'POST',
    path: '/v2/orders/topups',
    target: 'request',
    schema: optional('description'),
  },
  {
    id: 'AIR-22',
    why: 'the 422 schema requires data.package_id (its purchase-limit example), though a missing iccid names only iccid; the recycled-eSIM 422 ({code, reason}) is filed under "x-422:… (Recycled sim)"',
    method: 'POST',
    path: '/v2/orders/topups',
    target: 'response',
    status: 422,
    schema: (schema) => ({
      anyOf: [at('/properties/data', (data) => ({ ...data, required: [], additionalProperties: { type: 'string' } }))(schema), CODE_AND_REASON],
    }),
  },
  {
    id: 'AIR-21',
    why: 'package prices typed integer though the examples carry 11.2 and 18.4',
    method: 'GET',
    path: '/v2/sims/{iccid}/topups',
    target: 'response',
    status: 200,
    schema: chain(
      at(`${TOPUP}/properties/price`, alsoOfType('number')),
      at(`${TOPUP}/properties/net_price`, alsoOfType('number')),
      at(`${TOPUP}/properties/prices/properties/net_price/properties/USD`, alsoOfType('number')),
      at(`${TOPUP}/properties/prices/properties/recommended_retail_price/properties/USD`, alsoOfType('number')),
    ),
  },
  {
    id: 'AIR-6',
    why: 'the 401 for bad credentials is filed under the key "x-422:Request Access Token (401)"',
    method: 'POST',
    path: '/v2/token',
    target: 'response',
    status: 401,
    responseKey: 'x-422:Request Access Token (401)',
  },
  {
    id: 'AIR-14',
    why: 'the 422 schema has `data` an empty list, but the invalid-reason example (filed under 202) names the field in an object',
    method: 'POST',
    path: '/v2/refund',
    target: 'response',
    status: 422,
    schema: at('/properties/data', (s) => ({ anyOf: [s, { type: 'object', additionalProperties: { type: 'string' } }] })),
  },
  {
    id: 'AIR-7',
    why: 'brand_settings_name is "Nullable" in prose, a required string in the schema; apn_value is typed null though examples carry text; description is optional',
    method: 'POST',
    path: '/v2/orders',
    target: 'response',
    status: 200,
    schema: chain(
      at('/properties/data/properties/brand_settings_name', alsoOfType('null')),
      at('/properties/data/properties/description', alsoOfType('null')),
      at('/properties/data/properties/sims/items/properties/apn_value', alsoOfType('string')),
    ),
  },
  {
    id: 'AIR-8',
    why: 'description typed null only',
    method: 'GET',
    path: '/v2/orders/{order_id}',
    target: 'response',
    status: 200,
    schema: chain(
      at('/properties/data/properties/description', alsoOfType('string')),
      at('/properties/data/properties/sims/items/properties/apn_value', alsoOfType('string')),
      at('/properties/data', optional('sims', 'user', 'status')),
    ),
  },
  {
    id: 'AIR-9',
    why: 'sims, user and status are required though present only when `include` asks for them',
    method: 'GET',
    path: '/v2/orders',
    target: 'response',
    status: 200,
    schema: chain(
      at('/properties/data/items', optional('sims', 'user', 'status')),
      at('/properties/links/properties/prev', alsoOfType('string')),
      at('/properties/links/properties/next', alsoOfType('null')),
    ),
  },
  {
    id: 'AIR-8',
    why: 'apn_value typed null only, brand_settings_name string only, confirmation_code string only, simable.description null only; simable present only with include=order; recycled_at is "Y-m-d H:i:s", not date-time',
    method: 'GET',
    path: '/v2/sims/{sim_iccid}',
    target: 'response',
    status: 200,
    schema: chain(
      at('/properties/data/properties/apn_value', alsoOfType('string')),
      at('/properties/data/properties/brand_settings_name', alsoOfType('null')),
      at('/properties/data/properties/confirmation_code', alsoOfType('null')),
      at('/properties/data/properties/simable/properties/description', alsoOfType('string')),
      at('/properties/data/properties/recycled_at', withoutFormat),
      at('/properties/data', optional('simable')),
    ),
  },
  {
    id: 'AIR-8',
    why: 'simable present only with include=order; pagination links typed for page 1 only',
    method: 'GET',
    path: '/v2/sims',
    target: 'response',
    status: 200,
    schema: chain(
      at('/properties/data/items', optional('simable')),
      at('/properties/data/items/properties/recycled_at', withoutFormat),
      at('/properties/links/properties/prev', alsoOfType('string')),
      at('/properties/links/properties/next', alsoOfType('null')),
    ),
  },
  {
    id: 'AIR-10',
    why: 'package and retail prices typed integer though the example has 4.5; fair_usage_policy typed null though it describes the policy; pagination links typed for page 1 only',
    method: 'GET',
    path: '/v2/packages',
    target: 'response',
    status: 200,
    schema: chain(
      at(`${PACKAGE}/properties/price`, alsoOfType('number')),
      at(`${PACKAGE}/properties/prices/properties/recommended_retail_price/properties/USD`, alsoOfType('number')),
      at(`${PACKAGE}/properties/prices/properties/recommended_retail_price/properties/GBP`, alsoOfType('number')),
      at(`${PACKAGE}/properties/fair_usage_policy`, alsoOfType('string')),
      at(`${MIN_RRP}/properties/USD`, alsoOfType('number')),
      at(`${MIN_RRP}/properties/GBP`, alsoOfType('number')),
      at('/properties/links/properties/prev', alsoOfType('string')),
      at('/properties/links/properties/next', alsoOfType('null')),
    ),
  },
  {
    id: 'AIR-12',
    why: 'prices typed integer; dates typed for an active package only',
    method: 'GET',
    path: '/v2/sims/{iccid}/packages',
    target: 'response',
    status: 200,
    schema: chain(
      at('/properties/data/items/properties/package/properties/price', alsoOfType('number')),
      at('/properties/data/items/properties/package/properties/net_price', alsoOfType('number')),
      at('/properties/data/items/properties/activated_at', alsoOfType('null')),
      at('/properties/data/items/properties/expired_at', alsoOfType('null')),
      at('/properties/data/items/properties/finished_at', alsoOfType('string')),
    ),
  },
  {
    id: 'AIR-19',
    why: 'the balance amount is typed integer though balances are in cents-precise USD',
    method: 'GET',
    path: '/v2/balance',
    target: 'response',
    status: 200,
    schema: at('/properties/data/properties/balances/properties/availableBalance/properties/amount', alsoOfType('number')),
  },
];
