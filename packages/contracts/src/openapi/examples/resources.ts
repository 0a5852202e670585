import type { ApiKey } from '../../schemas/api-key.ts';
import type { Balance, BalanceTransaction } from '../../schemas/balance.ts';
import type { Refund } from '../../schemas/refund.ts';
import type { Bundle } from '../../schemas/bundle.ts';
import type { Esim } from '../../schemas/esim.ts';
import { appleInstallUrl } from '../../schemas/esim.ts';
import type { Order } from '../../schemas/order.ts';
import type { RequestLog } from '../../schemas/request-log.ts';
import type { TestClock } from '../../schemas/test-clock.ts';
import type { WebhookAttempt } from '../../schemas/webhook-attempt.ts';
import type { WebhookEndpoint, WebhookEndpointWithSecret } from '../../schemas/webhook-endpoint.ts';

// The objects the reference shows, as a sandbox answers them: ids of the right prefix and shape,
// 19-digit ICCIDs with their Luhn digit (issuer 99: sandbox), sandbox LPA codes. Typed by the
// contract, so a field added to a resource does not compile until its example has it.

/** 2026-11-18T11:06:40Z, the moment the examples happen. */
export const EXAMPLE_TIME = 1_795_000_000;

export const EXAMPLE_IDS = {
  esim: 'esim_01m7q5cqg0m9s346q3d25vt4f5',
  esim2: 'esim_01m7q5crtvv37e3s3e28jt97kb',
  order: 'ord_01m7q5cvghf5kznwj47tan9zt2',
  event: 'evt_01m7q5cwvc4mnpzx45hy43kwjr',
  apiKey: 'key_01m7q5d8wzdy0yp57rcybvn5sx',
  webhookEndpoint: 'we_01m7q5dbjn8vcd1gdjfmgt83px',
  webhookAttempt: 'msgatt_01m7q5dcxgt891wb09b9y73my6',
  request: 'req_01m7q5de8b3fch26w14wmchwyf',
  testClock: 'clock_01m7q5dgy19q9g8xe6szaeavsn',
  liveEsim: 'esim_01m7q5dk9b2sg4h7wzv1x3yq8n',
  liveOrder: 'ord_01m7q5dmm6ahq0ycbn8f4r2kte',
  balanceTransaction: 'btx_01m7q5dnzr3xw5bcf0q9m6v2hd',
  refund: 're_01m7q5dqbb7ct2kdy8s4wa5n1f',
} as const;

const SMDP = 'sandbox.smdp.invalid';

function sandboxEsim(id: string, iccid: string, matchingId: string): Esim {
  const activationCode = `LPA:1$${SMDP}$${matchingId}`;
  return {
    object: 'esim',
    id,
    iccid,
    state: 'released',
    expired_reason: null,
    bundle: 'esim_5GB_30D_EU',
    data_used_bytes: 0,
    data_limit_bytes: 5_000_000_000,
    activation_code: activationCode,
    apple_install_url: appleInstallUrl(activationCode),
    smdp_address: SMDP,
    matching_id: matchingId,
    validity_start: 'purchase',
    expires_at: EXAMPLE_TIME + 30 * 86_400,
    install_by: null,
    created_at: EXAMPLE_TIME,
    updated_at: EXAMPLE_TIME,
    simulated: true,
    metadata: { order_ref: 'A-1001' },
    test_clock: null,
  };
}

export const esimExample = sandboxEsim(EXAMPLE_IDS.esim, '8988299000042173854', 'TEST-7K2QH9ZP4M8XW3RC6TJD');
export const secondEsimExample = sandboxEsim(EXAMPLE_IDS.esim2, '8988299000042173862', 'TEST-Q4N8B2XK7D5VR9MT3HWC');

/** The eSIM after it was used for the first time: installed, then activated. */
export const activeEsimExample: Esim = { ...esimExample, state: 'active', data_used_bytes: 2_500_000_000, updated_at: EXAMPLE_TIME + 3_600 };

export const orderExample: Order = {
  object: 'order',
  id: EXAMPLE_IDS.order,
  bundle: 'esim_5GB_30D_EU',
  quantity: 2,
  price_cents: 1_799,
  total_cents: 3_598,
  currency: 'USD',
  rated: false,
  esims: [esimExample, secondEsimExample],
  simulated: true,
  metadata: { order_ref: 'A-1001' },
  test_clock: null,
  created_at: EXAMPLE_TIME,
};

export const bundleExamples: Bundle[] = [
  {
    object: 'bundle',
    name: 'esim_5GB_30D_EU',
    description: '5 GB for 30 days across 39 European countries',
    data_mb: 5_000,
    unlimited: false,
    duration_days: 30,
    validity_start: 'purchase',
    countries: ['AT', 'BE', 'DE', 'ES', 'FR', 'IT', 'NL', 'PT'],
    price_cents: 1_799,
    currency: 'USD',
    simulated: true,
    rated: false,
  },
  {
    object: 'bundle',
    name: 'esim_UL_7D_FR',
    description: 'Unlimited data for 7 days in France',
    data_mb: null,
    unlimited: true,
    duration_days: 7,
    validity_start: 'purchase',
    countries: ['FR'],
    price_cents: 2_499,
    currency: 'USD',
    simulated: true,
    rated: false,
  },
  {
    object: 'bundle',
    name: 'esim_1GB_7D_US_FIRSTUSE',
    description: '1 GB for 7 days in the United States, from its first use.',
    data_mb: 1_000,
    unlimited: false,
    duration_days: 7,
    validity_start: 'first_use',
    countries: ['US'],
    price_cents: 499,
    currency: 'USD',
    simulated: true,
    rated: false,
  },
];

export const apiKeyExample: ApiKey = {
  object: 'api_key',
  id: EXAMPLE_IDS.apiKey,
  environment: 'test',
  prefix: 'sk_test_Ab3x',
  last4: 'Q9wZ',
  status: 'active',
  scopes: ['catalogue:read', 'esim:read', 'esim:write', 'events:read', 'events:write', 'webhooks:read', 'webhooks:write', 'keys:read', 'test_helpers'],
  created_at: EXAMPLE_TIME - 86_400,
  last_used_at: EXAMPLE_TIME,
  revoked_at: null,
};

export const webhookEndpointExample: WebhookEndpoint = {
  object: 'webhook_endpoint',
  id: EXAMPLE_IDS.webhookEndpoint,
  url: 'https://hooks.example.com/connectivity',
  description: 'Order fulfilment',
  enabled_events: ['esim.released', 'esim.usage.threshold', 'esim.expired'],
  disabled: false,
  disabled_reason: null,
  environment: 'test',
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const webhookEndpointWithSecretExample: WebhookEndpointWithSecret = {
  ...webhookEndpointExample,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};

export const webhookAttemptExamples: WebhookAttempt[] = [
  {
    object: 'webhook_delivery_attempt',
    id: EXAMPLE_IDS.webhookAttempt,
    endpoint: EXAMPLE_IDS.webhookEndpoint,
    event: EXAMPLE_IDS.event,
    event_type: 'esim.released',
    attempt: 2,
    status: 'succeeded',
    status_code: 204,
    error: null,
    duration_ms: 84,
    next_retry_at: null,
    created_at: EXAMPLE_TIME + 6,
  },
  {
    object: 'webhook_delivery_attempt',
    id: 'msgatt_01m7q5dcx0a4r8w2kj6v3m9pqt',
    endpoint: EXAMPLE_IDS.webhookEndpoint,
    event: EXAMPLE_IDS.event,
    event_type: 'esim.released',
    attempt: 1,
    status: 'failed',
    status_code: 503,
    error: 'http_status',
    duration_ms: 112,
    next_retry_at: EXAMPLE_TIME + 6,
    created_at: EXAMPLE_TIME + 1,
  },
];

export const testClockExample: TestClock = {
  object: 'test_clock',
  id: EXAMPLE_IDS.testClock,
  name: 'renewals',
  frozen_time: 1_798_761_600,
  status: 'ready',
  created_at: EXAMPLE_TIME,
};

export const requestLogExample: RequestLog = {
  object: 'request_log',
  id: EXAMPLE_IDS.request,
  method: 'POST',
  path: '/v1/esim',
  route: '/v1/esim',
  status: 201,
  duration_ms: 38,
  api_key: EXAMPLE_IDS.apiKey,
  environment: 'test',
  created_at: EXAMPLE_TIME,
};

/** A live balance after one order of 2 eSIMs at $17.99 was recorded and one of them cancelled and refunded. */
export const balanceExample: Balance = {
  object: 'balance',
  environment: 'live',
  available_cents: 48_201,
  pending_cents: 0,
  currency: 'USD',
  low_balance_threshold_cents: 10_000,
  simulated: false,
};

export const balanceTransactionExamples: BalanceTransaction[] = [
  {
    object: 'balance_transaction',
    id: EXAMPLE_IDS.balanceTransaction,
    type: 'refund',
    amount_cents: 1_799,
    balance_after_cents: 48_201,
    currency: 'USD',
    source: EXAMPLE_IDS.refund,
    description: `Refund of ${EXAMPLE_IDS.liveEsim}`,
    created_at: EXAMPLE_TIME + 600,
  },
  {
    object: 'balance_transaction',
    id: 'btx_01m7q5dn0c8yq2v7r1kx4d9gwz',
    type: 'order',
    amount_cents: -3_598,
    balance_after_cents: 46_402,
    currency: 'USD',
    source: EXAMPLE_IDS.liveOrder,
    description: '2 × esim_5GB_30D_EU',
    created_at: EXAMPLE_TIME,
  },
];

export const refundExample: Refund = {
  object: 'refund',
  id: EXAMPLE_IDS.refund,
  esim: EXAMPLE_IDS.liveEsim,
  order: EXAMPLE_IDS.liveOrder,
  amount_cents: 1_799,
  currency: 'USD',
  status: 'succeeded',
  reason: 'esim_cancelled',
  failure_reason: null,
  created_at: EXAMPLE_TIME + 300,
  updated_at: EXAMPLE_TIME + 600,
};
