import { metrics, type Attributes, type Counter, type Histogram, type Meter, type MeterProvider, type ObservableGauge } from '@opentelemetry/api';

/**
 * The domain's metrics, beside the HTTP and database histograms the SDK's instrumentation records.
 * In Prometheus form a name reads with underscores for dots; counters are named with their
 * `_total` already and units are never a suffix, so a series has the same name scraped from a
 * process's `/metrics` and passed on by the collector (`add_metric_suffixes: false`); see
 * docs/runbook.md.
 *
 * The API hands out no-op instruments until the SDK has started (tests build apps in-process
 * without it), so instruments are made on first use and made again if the provider changed.
 */
const METER = '@connectivity/platform';

interface Instruments {
  rateLimitRefusals: Counter;
  idempotencyReplays: Counter;
  idempotencyConflicts: Counter;
  outboxPublishFailures: Counter;
  consumerRedeliveries: Counter;
  consumerDeadLetters: Counter;
  webhookAttempts: Counter;
  webhookDeliveryLatency: Histogram;
  webhookEndpointsDisabled: Counter;
  sweeperMoves: Counter;
  supplierCallDuration: Histogram;
  supplierErrors: Counter;
  supplierReports: Counter;
  supplierPurchases: Counter;
  supplierOrphanOrders: Counter;
  supplierNotices: Counter;
  refunds: Counter;
}

/** The breaker state of each live supplier adapter, read when metrics are collected (1 open, 0 closed). */
const supplierBreakers = new Map<string, number>();
/** The balance each live supplier last stated in a notice (record 0237), read when metrics are collected. */
const supplierStatedBalances = new Map<string, number>();

let made: { provider: MeterProvider; meter: Meter; instruments: Instruments } | undefined;

function current(): { meter: Meter; instruments: Instruments } {
  const provider = metrics.getMeterProvider();
  if (made?.provider === provider) return made;
  const meter = provider.getMeter(METER);
  const instruments: Instruments = {
    rateLimitRefusals: meter.createCounter('connectivity.ratelimit.refusals_total', { description: 'Requests refused with 429 rate_limited.' }),
    idempotencyReplays: meter.createCounter('connectivity.idempotency.replays_total', { description: 'Answers replayed for a repeated Idempotency-Key.' }),
    idempotencyConflicts: meter.createCounter('connectivity.idempotency.conflicts_total', { description: 'Requests refused 409 idempotency_key_reused.' }),
    outboxPublishFailures: meter.createCounter('connectivity.outbox.publish_failures_total', {
      description: 'Outbox rows whose publish to the bus failed (retried later).',
    }),
    consumerRedeliveries: meter.createCounter('connectivity.consumer.redeliveries_total', {
      description: 'Messages handled again after a failure or a lost ack.',
    }),
    consumerDeadLetters: meter.createCounter('connectivity.consumer.dead_letters_total', {
      description: 'Messages moved to the dead letters after their last delivery.',
    }),
    webhookAttempts: meter.createCounter('connectivity.webhook.attempts_total', { description: 'Webhook delivery attempts, by outcome.' }),
    webhookDeliveryLatency: meter.createHistogram('connectivity.webhook.delivery_latency', {
      description: 'From the event’s time to its successful delivery.',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400] },
    }),
    webhookEndpointsDisabled: meter.createCounter('connectivity.webhook.endpoints_disabled_total', {
      description: 'Webhook endpoints disabled by the service, by reason.',
    }),
    sweeperMoves: meter.createCounter('connectivity.sweeper.moves_total', { description: 'eSIMs moved by the expiry sweeper.' }),
    supplierCallDuration: meter.createHistogram('connectivity.supplier.call_duration', {
      description: 'Calls to a live supplier (vendor), retries included, by operation and outcome.',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
    }),
    supplierErrors: meter.createCounter('connectivity.supplier.errors_total', {
      description: 'Failed calls to a live supplier, by vendor, operation and failure.',
    }),
    supplierReports: meter.createCounter('connectivity.supplier.reports_total', {
      description: 'Profile reports of a live supplier applied from the inbox of its callbacks, by vendor and outcome.',
    }),
    supplierPurchases: meter.createCounter('connectivity.supplier.purchases_total', {
      description: 'Live purchase calls, by vendor and outcome (bought, in_doubt, refused, unavailable, price_changed).',
    }),
    supplierOrphanOrders: meter.createCounter('connectivity.supplier.orphan_orders_total', {
      description: 'Vendor orders that matched no order of ours, found by the audit and released.',
    }),
    supplierNotices: meter.createCounter('connectivity.supplier.notices_total', {
      description: 'Balance and credit-limit notices a live supplier sent about our account with it, by vendor and kind (record 0237).',
    }),
    refunds: meter.createCounter('connectivity.refunds_total', { description: 'Refunds of cancelled live eSIMs, by status reached.' }),
  };
  meter
    .createObservableGauge('connectivity.supplier.breaker_open', { description: 'Whether the circuit to a live supplier is open (1) or closed (0).' })
    .addCallback((result) => {
      for (const [vendor, open] of supplierBreakers) result.observe(open, { vendor });
    });
  meter
    .createObservableGauge('connectivity.supplier.stated_balance', {
      description: 'The balance of our account (USD) a live supplier stated in its last notice that stated one (record 0237).',
    })
    .addCallback((result) => {
      for (const [vendor, balance] of supplierStatedBalances) result.observe(balance, { vendor });
    });
  made = { provider, meter, instruments };
  return made;
}

const add = (pick: (i: Instruments) => Counter, attributes: Attributes, by = 1) => pick(current().instruments).add(by, attributes);

/** What the services count. */
export const domainMetrics = {
  rateLimitRefused: (scope: 'key' | 'address') => add((i) => i.rateLimitRefusals, { scope }),
  // `layer` stays so dashboards that group by it keep working; only the owning service replays
  // (docs/decisions/0059-edge-keeps-only-the-first-request-per-key.md).
  idempotencyReplayed: (layer: 'service') => add((i) => i.idempotencyReplays, { layer }),
  idempotencyConflict: (reason: 'in_progress' | 'mismatch') => add((i) => i.idempotencyConflicts, { reason }),
  outboxPublishFailed: (schema: string) => add((i) => i.outboxPublishFailures, { schema }),
  consumerRedelivered: (durable: string) => add((i) => i.consumerRedeliveries, { durable }),
  consumerDeadLettered: (durable: string) => add((i) => i.consumerDeadLetters, { durable }),
  webhookAttempt: (outcome: 'succeeded' | 'failed' | 'retry_scheduled' | 'gave_up') => add((i) => i.webhookAttempts, { outcome }),
  webhookDelivered: (latencySeconds: number) => current().instruments.webhookDeliveryLatency.record(latencySeconds),
  webhookEndpointDisabled: (reason: 'gone' | 'failing') => add((i) => i.webhookEndpointsDisabled, { reason }),
  sweeperMoved: (count: number) => add((i) => i.sweeperMoves, { to: 'expired' }, count),
  /** One call to a live supplier (all its attempts): `outcome` is `ok` or the failure. */
  supplierCalled: (vendor: string, operation: string, outcome: string, seconds: number) => {
    current().instruments.supplierCallDuration.record(seconds, { vendor, operation, outcome });
    if (outcome !== 'ok') add((i) => i.supplierErrors, { vendor, operation, failure: outcome });
  },
  /** A supplier callback's report applied: `applied`, `unchanged`, `unknown` (not an eSIM of ours) or why it was ignored. */
  supplierReportApplied: (vendor: string, outcome: string) => add((i) => i.supplierReports, { vendor, outcome }),
  /** One live purchase call's outcome (record 0159). */
  supplierPurchase: (vendor: string, outcome: string) => add((i) => i.supplierPurchases, { vendor, outcome }),
  /** A vendor order with no order of ours behind it, released (record 0161). */
  supplierOrphanOrder: (vendor: string) => add((i) => i.supplierOrphanOrders, { vendor }),
  /** A refund reached `status` (created as pending, succeeded, failed; record 0158). */
  refund: (status: 'pending' | 'succeeded' | 'failed') => add((i) => i.refunds, { status }),
  /**
   * A supplier's notice about our account with it (record 0237): `kind` is `credit_limit` (Airalo),
   * `low_balance` or `insufficient_balance` (eSIM Go); `balance` the balance it stated, when it states one.
   */
  supplierNotice: (vendor: string, kind: string, balance: number | null) => {
    add((i) => i.supplierNotices, { vendor, kind });
    if (balance !== null) supplierStatedBalances.set(vendor, balance);
  },
  /** The notice series of a vendor start at 0, so that an alert on their increase sees the first notice. */
  supplierNoticesExpected: (vendor: string, kinds: readonly string[]) => {
    for (const kind of kinds) add((i) => i.supplierNotices, { vendor, kind }, 0);
  },
  supplierBreaker: (vendor: string, state: 'open' | 'closed') => {
    current();
    supplierBreakers.set(vendor, state === 'open' ? 1 : 0);
  },
};

/**
 * A gauge read when metrics are collected (e.g. outbox rows pending, consumer lag). The callback
 * may be async; a failing one reports nothing for that collection. Returns the stop.
 */
export function observeGauge(
  name: string,
  options: { description: string; unit?: string },
  read: () => Promise<{ value: number; attributes?: Attributes }[]>,
): () => void {
  const gauge: ObservableGauge = current().meter.createObservableGauge(name, options);
  const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
    try {
      for (const { value, attributes } of await read()) result.observe(value, attributes);
    } catch {
      // Nothing observed this time (the database or the bus is unreachable); /readyz says so.
    }
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
