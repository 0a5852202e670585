import type { EsimBundle, Topup } from '../../schemas/topup.ts';
import { activeEsimExample, bundleExamples, EXAMPLE_IDS, EXAMPLE_TIME } from './resources.ts';

// Top-ups (records 0240-0243): the eSIM of the examples, 5 GB for 30 days, topped up with 20 GB
// after it used its first 5 GB; the new bundle is active, the first depleted.

export const TOPUP_ID = 'top_01m7q5dwq4h8c3nx6y2bt7r5ke';
const TOPPED_AT = EXAMPLE_TIME + 86_400;

export const topupExample: Topup = {
  object: 'topup',
  id: TOPUP_ID,
  esim: EXAMPLE_IDS.esim,
  bundle: 'esim_20GB_30D_EU',
  price_cents: 3_999,
  currency: 'USD',
  status: 'succeeded',
  simulated: true,
  created_at: TOPPED_AT,
};

/** The eSIM right after the top-up: 25 GB in all, validity moved on by 30 days. */
export const toppedUpEsimExample = {
  ...activeEsimExample,
  data_used_bytes: 5_000_000_000,
  data_limit_bytes: 25_000_000_000,
  expires_at: EXAMPLE_TIME + 60 * 86_400,
  updated_at: TOPPED_AT,
};

export const topupOfferExamples = [
  bundleExamples[0]!,
  {
    ...bundleExamples[0]!,
    name: 'esim_20GB_30D_EU',
    description: '20 GB for 30 days across 39 European countries',
    data_mb: 20_000,
    price_cents: 3_999,
  },
];

export const esimBundleExamples: EsimBundle[] = [
  {
    object: 'esim_bundle',
    bundle: 'esim_5GB_30D_EU',
    topup: null,
    state: 'depleted',
    data_limit_bytes: 5_000_000_000,
    data_used_bytes: 5_000_000_000,
    expires_at: EXAMPLE_TIME + 30 * 86_400,
    created_at: EXAMPLE_TIME,
  },
  {
    object: 'esim_bundle',
    bundle: 'esim_20GB_30D_EU',
    topup: TOPUP_ID,
    state: 'active',
    data_limit_bytes: 20_000_000_000,
    data_used_bytes: 0,
    expires_at: EXAMPLE_TIME + 60 * 86_400,
    created_at: TOPPED_AT,
  },
];
