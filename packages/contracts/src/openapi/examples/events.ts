import type { EventType } from '../../events/types.ts';
import type { TypedEventOf } from '../../events/typed.ts';
import { activeEsimExample, apiKeyExample, balanceExample, EXAMPLE_IDS, EXAMPLE_TIME, esimExample, refundExample } from './resources.ts';
import { topupExample, toppedUpEsimExample } from './topups.ts';

/** `time` of an event at `second`, with milliseconds, as events carry it. */
const timeAt = (second: number, millis: number): string => `${new Date(second * 1000).toISOString().slice(0, 19)}.${String(millis).padStart(3, '0')}Z`;

function envelope<T extends EventType>(
  type: T,
  id: string,
  second: number,
  data: TypedEventOf<T>['data'],
  environment: 'test' | 'live' = 'test',
): TypedEventOf<T> {
  return { object: 'event', id, type, time: timeAt(second, 412), created_at: second, data, environment } as TypedEventOf<T>;
}

const pendingRefund = { ...refundExample, status: 'pending' as const, updated_at: refundExample.created_at };

const at = (offset: number) => EXAMPLE_TIME + offset;
const moved = (state: typeof esimExample.state, offset: number) => ({ ...activeEsimExample, state, updated_at: at(offset) });

/** One event of each type, as GET /v1/events lists it and a webhook delivers it. */
export const EVENT_EXAMPLES: { [T in EventType]: TypedEventOf<T> } = {
  'esim.released': envelope('esim.released', EXAMPLE_IDS.event, at(0), { object: esimExample, previous_state: null }),
  'esim.installed': envelope('esim.installed', 'evt_01m7q5cy67p1xpa7z3dj8fssz5', at(1_800), {
    object: { ...esimExample, state: 'installed', updated_at: at(1_800) },
    previous_state: 'released',
  }),
  'esim.activated': envelope('esim.activated', 'evt_01m7q5czh2awsh8vhtpre95b9e', at(1_900), {
    object: { ...esimExample, state: 'active', updated_at: at(1_900) },
    previous_state: 'installed',
  }),
  'esim.suspended': envelope('esim.suspended', 'evt_01m7q5d0vxe0zbgj09tqm83xss', at(7_200), {
    object: moved('suspended', 7_200),
    previous_state: 'active',
  }),
  'esim.expired': envelope('esim.expired', 'evt_01m7q5d26rss6ys3c4dwa7n360', at(30 * 86_400), {
    object: { ...moved('expired', 30 * 86_400), expired_reason: 'validity_ended' },
    previous_state: 'active',
  }),
  'esim.usage.threshold': envelope('esim.usage.threshold', 'evt_01m7q5d3hk96q14dr9gpqy77zx', at(3_600), {
    object: activeEsimExample,
    threshold_percent: 50,
    data_used_bytes: 2_500_000_000,
    data_limit_bytes: 5_000_000_000,
  }),
  'api_key.issued': envelope('api_key.issued', 'evt_01m7q5d4weyyk596ngya1dq91k', at(-86_400), {
    object: { ...apiKeyExample, last_used_at: null },
  }),
  'api_key.first_used': envelope('api_key.first_used', 'evt_01m7q5d6795gqapenecfseczp1', at(-86_000), {
    object: { ...apiKeyExample, last_used_at: at(-86_000) },
  }),
  'api_key.revoked': envelope('api_key.revoked', 'evt_01m7q5d7j41hygcpwpq5e6eycn', at(86_400), {
    object: { ...apiKeyExample, status: 'revoked', revoked_at: at(86_400) },
  }),
  'refund.created': envelope('refund.created', 'evt_01m7q5dr2pa9c5wx3k7tz0h4fm', at(300), { object: pendingRefund }, 'live'),
  'refund.succeeded': envelope('refund.succeeded', 'evt_01m7q5dsd8f1m6qe9v2yb4n7wk', at(600), { object: refundExample }, 'live'),
  'refund.failed': envelope(
    'refund.failed',
    'evt_01m7q5dtr3h7b0ze5c8mx1q6pv',
    at(86_400),
    { object: { ...refundExample, status: 'failed', failure_reason: 'supplier_rejected', updated_at: at(86_400) } },
    'live',
  ),
  'balance.low': envelope(
    'balance.low',
    'evt_01m7q5dvabk2w8nr4f6hs9x3ty',
    at(0),
    { object: { ...balanceExample, available_cents: 9_402 }, threshold_cents: 10_000 },
    'live',
  ),
  'esim.topped_up': envelope('esim.topped_up', 'evt_01m7q5dwr7k2m9qd4x8hv3n6tb', at(86_400), {
    object: toppedUpEsimExample,
    previous_state: 'active',
    topup: topupExample,
  }),
  'esim.expiring': envelope('esim.expiring', 'evt_01m7q5e2b9v4k7ht3q6yd8wz1c', esimExample.expires_at! - 3 * 86_400, {
    object: moved('active', 3_600),
    days_left: 3,
  }),
};
