import { cursorSecretSchema, loadServiceConfig, resolveCursorSecret, serviceConfigSchema } from '@connectivity/platform';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** inventory's environment, parsed once at boot (the platform's common variables + its own). */
export const configSchema = serviceConfigSchema(8082).extend({
  /** Signs list cursors; shared by every instance (see the platform's pagination). */
  CURSOR_SECRET: cursorSecretSchema,
  /** catalogue's base URL: bundles for orders, and live supply. */
  CATALOGUE_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** How long inventory waits for catalogue (a live purchase included) before the call counts as timed out. */
  CATALOGUE_TIMEOUT_MS: positiveInt(15_000),
  /** How often the expiry sweeper looks for eSIMs past their validity. */
  SWEEPER_INTERVAL_MS: positiveInt(15_000),
  /** eSIMs the expiry sweeper moves, and the expiring notifier sends `esim.expiring` for, per transaction. */
  SWEEPER_BATCH_SIZE: positiveInt(200),
  /** How often the worker looks for eSIMs 3 days or 1 day before `expires_at` to send `esim.expiring` (record 0236); it uses `SWEEPER_BATCH_SIZE`. */
  EXPIRING_NOTIFIER_INTERVAL_MS: positiveInt(60_000),
  /** How often the worker looks for supplier profiles of unrecorded orders to release. */
  RELEASE_POLL_INTERVAL_MS: positiveInt(5_000),
  /** First retry delay of a failed release (doubling each time), and the longest. */
  RELEASE_RETRY_BASE_MS: positiveInt(5_000),
  /** The longest wait between two tries of a failed release. */
  RELEASE_RETRY_MAX_MS: positiveInt(3_600_000),
  /** How often the inbox of supplier callbacks is polled when no callback woke it. */
  SUPPLIER_REPORTS_POLL_INTERVAL_MS: positiveInt(5_000),
  /** How long an applied supplier report stays in the inbox (for looking into a vendor's claims), and how often older ones are deleted. */
  SUPPLIER_REPORT_RETENTION_MS: positiveInt(7 * 86_400_000),
  /** How often applied supplier reports past SUPPLIER_REPORT_RETENTION_MS are deleted. */
  SUPPLIER_REPORT_RETENTION_INTERVAL_MS: positiveInt(3_600_000),
  /**
   * Reconciliation (record 0151): every interval, one batch of live eSIMs not final is asked about
   * at the supplier, least recently checked first. Batch per interval is the rate budget spent at
   * the vendor; the live eSIMs over it is how long a lost callback can go unnoticed.
   */
  SUPPLIER_RECONCILE_INTERVAL_MS: positiveInt(30_000),
  /** Live eSIMs asked about at the vendor per reconciliation interval: the rate budget reconciliation spends (record 0151). */
  SUPPLIER_RECONCILE_BATCH: positiveInt(25),
  /** Live eSIMs all inventory instances together may ask the supplier about per minute (record 0234). */
  SUPPLIER_POLL_BUDGET_PER_MINUTE: positiveInt(120),
  /** How long a live purchase is left to its request and retries before it is settled (record 0152). */
  PURCHASE_INTENT_CHECK_AFTER_MS: positiveInt(600_000),
  /** How often the worker looks for purchases whose order was never recorded (record 0152). */
  PURCHASE_INTENT_POLL_INTERVAL_MS: positiveInt(60_000),
  /**
   * How long a purchase call that may have reached the vendor keeps its order in doubt when the vendor
   * has said nothing better (record 0159): no second purchase before, unless its order is found.
   */
  PURCHASE_IN_DOUBT_MS: positiveInt(600_000),
  /** Live purchases in flight per account at most; one more is 429 (record 0162). */
  LIVE_ORDERS_IN_FLIGHT_PER_ACCOUNT: positiveInt(10),
  /** When a refund the vendor reviews (Airalo) is first looked at, and how often the refund worker runs (record 0158). */
  REFUND_CHECK_AFTER_MS: positiveInt(3_600_000),
  /** How often the refund worker runs (record 0158). */
  REFUND_POLL_INTERVAL_MS: positiveInt(60_000),
  /**
   * The audit of the vendor's orders against ours (record 0161): how often it runs, how far back it
   * looks, and how old a vendor order must be before an unmatched one is released (its purchase may
   * still be in flight before that).
   */
  SUPPLIER_ORDER_AUDIT_INTERVAL_MS: positiveInt(600_000),
  /** How far back the audit reads the vendor's orders (record 0161). */
  SUPPLIER_ORDER_AUDIT_LOOKBACK_MS: positiveInt(86_400_000),
  /** How old a vendor order must be before one with no order of ours is released (record 0161). */
  SUPPLIER_ORDER_AUDIT_MIN_AGE_MS: positiveInt(900_000),
  /** How often the outbox relay polls when nothing woke it. */
  OUTBOX_POLL_INTERVAL_MS: positiveInt(500),
  /** Test clocks (not deleted) an account may have; one more is 403 `quota_exceeded` (record 0212). */
  TEST_CLOCKS_PER_ACCOUNT: positiveInt(100),
  /** Test eSIMs an account may create in a UTC day, counted with its orders; past it 403 `quota_exceeded` (record 0212). */
  TEST_ESIMS_PER_DAY: positiveInt(1000),
  /**
   * Test orders, their eSIMs and test clocks older than this are deleted by the test data sweep,
   * `TEST_DATA_RETENTION_BATCH` orders or clocks a transaction, every `TEST_DATA_RETENTION_INTERVAL_MS`
   * (record 0213). Live data is never touched.
   */
  TEST_DATA_RETENTION_MS: positiveInt(30 * 86_400_000),
  /** Test orders or clocks the test data sweep deletes per transaction (record 0213). */
  TEST_DATA_RETENTION_BATCH: positiveInt(200),
  /** How often the test data sweep runs (record 0213). */
  TEST_DATA_RETENTION_INTERVAL_MS: positiveInt(3_600_000),
  /** eSIMs a test clock's advance expires per transaction (record 0214). */
  TEST_CLOCK_ADVANCE_BATCH: positiveInt(200),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadServiceConfig(configSchema, env);
  return { ...config, CURSOR_SECRET: resolveCursorSecret(config) };
}
