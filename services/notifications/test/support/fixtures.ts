import { randomBytes } from 'node:crypto';
import type { EsimState } from '@connectivity/contracts';

/** An eSIM object as inventory puts it in event data. */
export function esim(state: EsimState, overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  const matchingId = `TEST-${randomBytes(10).toString('hex').toUpperCase()}`;
  return {
    object: 'esim',
    id: `esim_${randomBytes(13).toString('hex')}`,
    iccid: '8988247000000000019',
    state,
    bundle: 'esim_5GB_30D_EU',
    data_used_bytes: 0,
    data_limit_bytes: 5_000_000_000,
    activation_code: `LPA:1$sandbox.smdp.invalid$${matchingId}`,
    smdp_address: 'sandbox.smdp.invalid',
    matching_id: matchingId,
    validity_start: 'purchase',
    expires_at: now + 30 * 86_400,
    install_by: null,
    created_at: now,
    updated_at: now,
    simulated: true,
    ...overrides,
  };
}
