// Realistic objects as the services will produce them, shared by the tests.
import type { ApiKey, Bundle, Esim, Order } from '../src/index.ts';

export const NOW = 1_795_000_000;

export const esim: Esim = {
  object: 'esim',
  id: 'esim_01jd8x7k2m9q4r5s6t7v8w9xyz',
  iccid: '8988247000012345678',
  state: 'active',
  expired_reason: null,
  bundle: 'esim_5GB_30D_EU',
  data_used_bytes: 2_500_000_000,
  data_limit_bytes: 5_000_000_000,
  activation_code: 'LPA:1$sandbox.smdp.invalid$TEST-ABCDEFGHIJ0123456789',
  apple_install_url: 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24sandbox.smdp.invalid%24TEST-ABCDEFGHIJ0123456789',
  smdp_address: 'sandbox.smdp.invalid',
  matching_id: 'TEST-ABCDEFGHIJ0123456789',
  validity_start: 'purchase',
  expires_at: NOW + 30 * 86_400,
  install_by: null,
  created_at: NOW,
  updated_at: NOW + 60,
  simulated: true,
  metadata: { order_ref: 'A-1001' },
  test_clock: null,
};

export const bundle: Bundle = {
  object: 'bundle',
  name: 'esim_5GB_30D_EU',
  description: '5 GB for 30 days across the European Union',
  data_mb: 5000,
  unlimited: false,
  duration_days: 30,
  validity_start: 'purchase',
  countries: ['DE', 'FR', 'IT'],
  price_cents: 1299,
  currency: 'USD',
  simulated: true,
  rated: false,
};

export const order: Order = {
  object: 'order',
  id: 'ord_01jd8x7k2m9q4r5s6t7v8w9xyz',
  bundle: 'esim_5GB_30D_EU',
  quantity: 1,
  price_cents: 1299,
  total_cents: 1299,
  currency: 'USD',
  rated: false,
  esims: [{ ...esim, state: 'released', data_used_bytes: 0, updated_at: NOW }],
  simulated: true,
  metadata: { order_ref: 'A-1001' },
  test_clock: null,
  created_at: NOW,
};

export const apiKey: ApiKey = {
  object: 'api_key',
  id: 'key_01jd8x7k2m9q4r5s6t7v8w9xyz',
  environment: 'test',
  prefix: 'sk_test_Ab3x',
  last4: 'x9Qz',
  status: 'active',
  scopes: ['esim:read', 'esim:write'],
  created_at: NOW,
  last_used_at: null,
  revoked_at: null,
};

export const eventEnvelope = {
  object: 'event',
  id: 'evt_01jd8x7k2m9q4r5s6t7v8w9xyz',
  time: '2026-11-22T10:15:30.123Z',
  created_at: NOW,
  environment: 'test',
} as const;
