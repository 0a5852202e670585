import { convert } from '../shared/currency.ts';
import { countryName, dataLabel, packageTitle, type AiraloDestinationSpec, type AiraloOperatorSpec, type AiraloPackageSpec } from './catalogue.ts';
import type { AiraloContext } from './context.ts';
import { airaloDateTime, type AiraloOrder, type AiraloSim } from './state.ts';
import { capacityBytes, isUnlimitedSim, simPackages } from './topups.ts';

// The currencies of the price lists, in the documents' order (packages list no KWD).
const MIN_PRICE_CURRENCIES = ['AUD', 'BRL', 'GBP', 'CAD', 'AED', 'EUR', 'INR', 'IDR', 'ILS', 'JPY', 'KWD', 'MYR', 'MXN', 'SGD', 'ZAR', 'KRW', 'USD', 'VND'];
const PACKAGE_CURRENCIES = ['USD', 'EUR', 'GBP', 'AUD', 'BRL', 'CAD', 'AED', 'INR', 'IDR', 'ILS', 'JPY', 'MYR', 'MXN', 'SGD', 'KRW', 'VND', 'ZAR'];

const image = (slug: string) => ({ width: 132, height: 99, url: `https://cdn.airalo.example/images/${slug}.png` });

function installationHtml(operator: AiraloOperatorSpec, qr: boolean): string {
  const coverage = operator.countries.map(countryName).join(', ');
  const how = qr
    ? '<li>Settings > Cellular/Mobile > Add Cellular/Mobile Plan.</li><li>Scan QR code.</li>'
    : '<li>Settings > Cellular/Mobile > Add Cellular/Mobile Plan.</li><li>Manually enter the SM-DP+ Address and activation code.</li>';
  return `<p><b>eSIM name:</b> ${operator.title}</p><p><b>Coverage: </b>${coverage}</p><ol>${how}<li>Confirm eSIM plan details.</li><li>Label the eSIM.</li></ol><p><b>To access Data:</b></p><ol><li>Enable data roaming.</li></ol>`;
}

/** The fields every package view shares (catalogue, package history). */
const packageSummary = (pkg: AiraloPackageSpec) => ({
  id: pkg.id,
  type: pkg.type,
  price: pkg.price,
  net_price: pkg.net_price,
  amount: pkg.amount,
  day: pkg.day,
  is_unlimited: pkg.is_unlimited,
  title: packageTitle(pkg),
  data: dataLabel(pkg),
});

function packageBody(pkg: AiraloPackageSpec, operator: AiraloOperatorSpec) {
  return {
    ...packageSummary(pkg),
    voice: null,
    text: null,
    prices: {
      net_price: convert(pkg.net_price, PACKAGE_CURRENCIES),
      recommended_retail_price: convert(pkg.price, PACKAGE_CURRENCIES),
    },
    short_info: "This eSIM doesn't come with a phone number.",
    qr_installation: installationHtml(operator, true),
    manual_installation: installationHtml(operator, false),
    is_fair_usage_policy: pkg.is_unlimited,
    fair_usage_policy: pkg.is_unlimited ? 'Lower speed rate of 1 Mbps after 3 GB usage per day.' : null,
  };
}

function apn(operator: AiraloOperatorSpec) {
  return { ios: { apn_type: 'automatic', apn_value: operator.apn_value }, android: { apn_type: 'manual', apn_value: operator.apn_value } };
}

function operatorBody(operator: AiraloOperatorSpec, packages: AiraloPackageSpec[]) {
  return {
    id: operator.id,
    title: operator.title,
    type: operator.type,
    plan_type: 'data',
    is_roaming: operator.type === 'global',
    rechargeability: true,
    packages: packages.map((p) => packageBody(p, operator)),
    style: 'dark',
    gradient_start: '#1f2a44',
    gradient_end: '#3a4d7a',
    is_prepaid: true,
    esim_type: 'Prepaid',
    warning: null,
    apn_type: 'manual',
    apn_value: operator.apn_value,
    info: ['Data-only eSIM', 'Rechargeable online with top-up packages'],
    image: image(`operator-${operator.id}`),
    activation_policy: 'first-usage',
    is_kyc_verify: false,
    other_info: null,
    coverages: operator.countries.map((code) => ({ name: code, code, networks: [{ name: `${countryName(code)} Mobile`, types: ['4G', '5G'] }] })),
    install_window_days: 180,
    topup_grace_window_days: 90,
    apn: apn(operator),
    countries: operator.countries.map((code) => ({ country_code: code, title: countryName(code), image: image(code.toLowerCase()) })),
  };
}

/** One `data[]` entry of GET /v2/packages, with the packages the filters keep. */
export function destinationBody(destination: AiraloDestinationSpec, keep: (pkg: AiraloPackageSpec) => boolean) {
  const operators = destination.operators.map((operator) => ({ operator, packages: operator.packages.filter(keep) })).filter((o) => o.packages.length > 0);
  const all = operators.flatMap((o) => o.packages);
  const cheapest = all.reduce((min, p) => (p.price < min.price ? p : min), all[0]!);
  const cheapestNet = all.reduce((min, p) => (p.net_price < min.net_price ? p : min), all[0]!);
  return {
    slug: destination.slug,
    country_code: destination.country_code,
    title: destination.title,
    image: image(destination.slug),
    min_price: {
      net_price: convert(cheapestNet.net_price, MIN_PRICE_CURRENCIES),
      recommended_retail_price: convert(cheapest.price, MIN_PRICE_CURRENCIES),
    },
    operators: operators.map((o) => operatorBody(o.operator, o.packages)),
  };
}

export const lpaString = (sim: AiraloSim) => `LPA:1$${sim.lpa}$${sim.matching_id}`;

function simInstallFields(ctx: AiraloContext, sim: AiraloSim) {
  const { operator } = ctx.packages.get(sim.package_id)!;
  return {
    id: sim.id,
    created_at: sim.created_at,
    iccid: sim.iccid,
    lpa: sim.lpa,
    imsis: null,
    matching_id: sim.matching_id,
    qrcode: lpaString(sim),
    qrcode_url: `${ctx.origin()}/qr?expires=1831039358&id=${sim.id}&signature=${Buffer.from(sim.iccid).toString('hex')}`,
    direct_apple_installation_url: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${lpaString(sim)}`,
    airalo_code: null,
    apn_type: 'manual',
    apn_value: operator.apn_value,
    is_roaming: operator.type === 'global',
    confirmation_code: null,
  };
}

/** An order as the read endpoints show it (prices and validity as text there, AIR-9). */
function orderSummary(ctx: AiraloContext, order: AiraloOrder) {
  const { operator, pkg } = ctx.packages.get(order.package_id)!;
  return {
    id: order.id,
    created_at: order.created_at,
    code: order.code,
    description: order.description,
    type: pkg.type,
    package_id: order.package_id,
    quantity: order.quantity,
    package: `${operator.title}-${packageTitle(pkg)}`,
    esim_type: 'Prepaid',
    validity: String(pkg.day),
    price: pkg.price.toFixed(2),
    data: dataLabel(pkg),
    currency: 'USD',
    manual_installation: installationHtml(operator, false),
    qrcode_installation: installationHtml(operator, true),
    installation_guides: { en: 'https://www.airalo.com/help/getting-started-with-airalo' },
  };
}

/** An order as the calls that place it answer (POST /v2/orders, POST /v2/orders/topups), without eSIMs. */
export function placedOrderBody(ctx: AiraloContext, order: AiraloOrder) {
  const { operator, pkg } = ctx.packages.get(order.package_id)!;
  return {
    id: order.id,
    code: order.code,
    currency: 'USD',
    package_id: order.package_id,
    quantity: order.quantity,
    type: pkg.type,
    description: order.description,
    esim_type: 'Prepaid',
    validity: pkg.day,
    package: `${operator.title}-${packageTitle(pkg)}`,
    data: dataLabel(pkg),
    price: pkg.price,
    pricing_model: 'net_pricing',
    created_at: order.created_at,
    manual_installation: installationHtml(operator, false),
    qrcode_installation: installationHtml(operator, true),
    installation_guides: { en: 'https://www.airalo.com/help/getting-started-with-airalo' },
    text: null,
    voice: null,
    net_price: pkg.net_price,
  };
}

/** The answer of POST /v2/orders (and the async-order webhook's `data`). */
export function createdOrderBody(ctx: AiraloContext, order: AiraloOrder) {
  const { operator } = ctx.packages.get(order.package_id)!;
  return {
    ...placedOrderBody(ctx, order),
    // AIR-7: the document types `quantity` a string here (its examples disagree with each other).
    quantity: String(order.quantity),
    brand_settings_name: order.brand_settings_name,
    sims: order.iccids.map((iccid) => {
      const sim = ctx.state.sims[iccid]!;
      return { ...simInstallFields(ctx, sim), apn: apn(operator) };
    }),
  };
}

const ORDER_STATUS_NAMES: Record<AiraloOrder['status'], string> = {
  completed: 'Completed',
  failed: 'Failed',
  refunded: 'Refunded',
  partially_refunded: 'Partially refunded',
};

export function userBody(ctx: AiraloContext) {
  return {
    id: 120,
    created_at: '2025-01-06 09:00:00',
    name: 'Fake Partner',
    email: `${ctx.settings.clientId}@partners.airalo.example`,
    mobile: null,
    address: null,
    state: null,
    city: null,
    postal_code: null,
    country_id: null,
    company: 'Fake Partner Ltd',
  };
}

/** An order as GET /v2/orders and GET /v2/orders/{id} show it; `include` adds sims, user, status. */
export function listedOrderBody(ctx: AiraloContext, order: AiraloOrder, include: Set<string>) {
  return {
    ...orderSummary(ctx, order),
    ...(include.has('sims') ? { sims: order.iccids.map((iccid) => simInstallFields(ctx, ctx.state.sims[iccid]!)) } : {}),
    ...(include.has('user') ? { user: userBody(ctx) } : {}),
    ...(include.has('status') ? { status: { name: ORDER_STATUS_NAMES[order.status], slug: order.status } } : {}),
  };
}

/** An eSIM as GET /v2/sims and GET /v2/sims/{iccid} show it; `include=order…` adds the order as `simable`. */
export function simBody(ctx: AiraloContext, sim: AiraloSim, include: Set<string>) {
  const order = ctx.state.orders.find((o) => o.id === sim.order_id)!;
  const withOrder = include.has('order') || include.has('order.status') || include.has('order.user');
  return {
    ...simInstallFields(ctx, sim),
    voucher_code: null,
    order: null,
    brand_settings_name: sim.brand_settings_name,
    recycled: sim.status === 'RECYCLED',
    recycled_at: sim.recycled_at === undefined ? null : airaloDateTime(sim.recycled_at),
    ...(withOrder
      ? {
          simable: {
            ...orderSummary(ctx, order),
            status: { name: ORDER_STATUS_NAMES[order.status], slug: order.status },
            user: userBody(ctx),
            sharing: { link: `https://esims.cloud/fake-partner/${sim.matching_id.toLowerCase()}`, access_code: String(sim.id % 10000).padStart(4, '0') },
          },
        }
      : {}),
  };
}

const MB = 1024 * 1024;

/** GET /v2/sims/{iccid}/usage `data` (MB, AIR-11): the eSIM's whole data, top-ups included; unlimited packages report 0. */
export function usageBody(ctx: AiraloContext, sim: AiraloSim) {
  const unlimited = isUnlimitedSim(ctx, sim);
  const capacity = capacityBytes(ctx, sim);
  const total = unlimited ? 0 : capacity / MB;
  const remaining = unlimited ? 0 : Math.max(0, Math.floor((capacity - sim.used_bytes) / MB));
  return {
    remaining,
    total,
    expired_at: airaloDateTime(sim.expires_at ?? Date.parse(sim.created_at.replace(' ', 'T') + 'Z') + 180 * 86_400_000),
    is_unlimited: unlimited,
    status: sim.status,
    remaining_voice: 0,
    remaining_text: 0,
    total_voice: 0,
    total_text: 0,
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00'));

/**
 * GET /v2/sims/{iccid}/packages `data`: the eSIM's own package and each top-up, newest first (the
 * document's example). Data is used from the oldest on; a package whose share is used is FINISHED, a
 * top-up bought before the eSIM was used starts with it.
 */
export function packageHistory(ctx: AiraloContext, sim: AiraloSim) {
  const packages = simPackages(ctx, sim);
  const entries = [{ id: sim.id, bought: undefined as number | undefined }, ...(sim.topups ?? []).map((t) => ({ id: t.id, bought: t.added_at }))];
  let before = 0;
  return entries
    .map((entry, i) => {
      const pkg = packages[i]!;
      const used = pkg.is_unlimited ? 0 : Math.min(pkg.amount * MB, Math.max(0, sim.used_bytes - before));
      before += pkg.amount * MB;
      const finished = !pkg.is_unlimited && used >= pkg.amount * MB;
      const activated = sim.activated_at === undefined ? undefined : Math.max(sim.activated_at, entry.bought ?? 0);
      const final = sim.status === 'EXPIRED' || sim.status === 'RECYCLED' || sim.status === 'UNKNOWN';
      return {
        id: entry.id,
        status: final ? sim.status : finished ? 'FINISHED' : sim.status === 'NOT_ACTIVE' ? 'NOT_ACTIVE' : 'ACTIVE',
        remaining: pkg.is_unlimited ? 0 : Math.floor((pkg.amount * MB - used) / MB),
        activated_at: iso(activated),
        expired_at: iso(sim.expires_at),
        finished_at: iso(finished ? (sim.finished_at ?? activated) : undefined),
        package: { ...packageSummary(pkg), short_info: null },
      };
    })
    .reverse();
}

/** GET /v2/sims/{iccid}/instructions `data`. */
export function instructionsBody(sim: AiraloSim, language: string) {
  const steps = (...texts: string[]) => Object.fromEntries(texts.map((t, i) => [String(i + 1), t]));
  const network = { apn_type: 'manual', apn_value: 'globaldata', is_roaming: true };
  return {
    instructions: {
      language: language.toUpperCase(),
      ios: [
        {
          model: null,
          version: '17,18',
          installation_via_qr_code: {
            steps: steps(
              'Go to Settings > Cellular > Add eSIM.',
              'Scan the QR Code.',
              "Tap on 'Add Cellular Plan'.",
              'Label the eSIM.',
              'Choose the default line.',
              'Choose the line for iMessage and FaceTime.',
              'Choose the eSIM for Cellular Data.',
              'Your eSIM is installed.',
            ),
            qr_code_data: lpaString(sim),
            qr_code_url: `https://www.airalo.example/qr/${sim.iccid}.png`,
            direct_apple_installation_url: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${lpaString(sim)}`,
          },
          installation_manual: {
            steps: steps(
              'Go to Settings > Cellular > Add eSIM.',
              "Tap on 'Enter Details Manually'.",
              'Enter your SM-DP+ Address and Activation Code.',
              "Tap on 'Add Cellular Plan'.",
              'Label the eSIM.',
              'Choose the default line.',
              'Choose the line for iMessage and FaceTime.',
              'Choose the eSIM for Cellular Data.',
              'Your eSIM is installed.',
            ),
            smdp_address_and_activation_code: sim.lpa,
          },
          network_setup: {
            steps: steps(
              "Select your eSIM under 'Cellular Plans'.",
              "Turn on 'Turn On This Line'.",
              'Select the supported network.',
              'Turn on Data Roaming.',
              'Need help? Chat with us.',
            ),
            ...network,
          },
        },
      ],
      android: [
        {
          model: null,
          version: null,
          installation_via_qr_code: {
            steps: steps(
              'Go to Settings > Connections > SIM Card Manager.',
              "Tap on 'Add Mobile Plan'.",
              "Tap on 'Scan Carrier QR Code'.",
              "Tap 'Ok' to turn on the plan.",
              'Your eSIM is installed.',
            ),
            qr_code_data: lpaString(sim),
            qr_code_url: `https://www.airalo.example/qr/${sim.iccid}.png`,
          },
          installation_manual: {
            steps: steps(
              'Go to Settings > Connections > SIM Card Manager.',
              "Tap on 'Add Mobile Plan'.",
              "Tap on 'Enter code instead'.",
              'Enter the activation code.',
              "Tap 'Ok' to turn on the plan.",
              'Your eSIM is installed.',
            ),
            smdp_address_and_activation_code: sim.lpa,
          },
          network_setup: {
            steps: steps(
              "Select your eSIM in 'SIM Card Manager'.",
              'Turn the eSIM on.',
              'Enable Mobile Data.',
              'Turn on Data Roaming.',
              'Open Network Operators.',
              'Select the supported network.',
              'Need help? Chat with us.',
            ),
            ...network,
          },
        },
      ],
    },
  };
}
