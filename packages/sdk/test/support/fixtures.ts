// Shapes of the contract's eSIM and order; not annotated with their types, so a field the contract
// gains later does not break these unit tests (the client does not validate answers).
export function esimFixture(n: number) {
  return {
    object: 'esim' as const,
    id: `esim_${String(n).padStart(26, '0')}`,
    iccid: `89882${String(n).padStart(14, '0')}`,
    state: 'released' as const,
    bundle: 'esim_5GB_30D_EU',
    data_used_bytes: 0,
    data_limit_bytes: 5_000_000_000,
    activation_code: `LPA:1$sandbox.smdp.invalid$TEST-${String(n).padStart(20, '0')}`,
    apple_install_url: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24sandbox.smdp.invalid%24TEST-${String(n).padStart(20, '0')}`,
    smdp_address: 'sandbox.smdp.invalid',
    matching_id: `TEST-${String(n).padStart(20, '0')}`,
    validity_start: 'purchase',
    expires_at: 1_797_934_530,
    install_by: null,
    created_at: 1_795_342_530,
    updated_at: 1_795_342_530,
    simulated: true,
    metadata: {},
  };
}

export const orderFixture = {
  object: 'order',
  id: 'ord_01jd8x7k2m9q4r5s6t7v8w9xyz',
  bundle: 'esim_5GB_30D_EU',
  quantity: 1,
  price_cents: 1_200,
  total_cents: 1_200,
  currency: 'USD',
  rated: false,
  esims: [esimFixture(1)],
  simulated: true,
  metadata: {},
  created_at: 1_795_342_530,
};
