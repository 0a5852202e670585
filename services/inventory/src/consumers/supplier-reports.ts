import { SUPPLIER_REPORTS_FILTER, supplierReportsMessageSchema } from '@connectivity/contracts';
import { injectTraceContext, observeGauge, signalAfterCommit, type Bus, type Logger, type Subscription } from '@connectivity/platform';
import type { Knex } from 'knex';
import { storeReports, SUPPLIER_REPORTS_SIGNAL } from '../db/supplier-report-repository.ts';

/** The durable consumer's name: every inventory instance shares it, so each callback is stored once. */
export const SUPPLIER_REPORTS_DURABLE = 'supplier-reports';

export interface SupplierReportsConsumerOptions {
  bus: Bus;
  knex: Knex;
  logger: Logger;
}

/**
 * The reports of the vendors' callbacks, as catalogue verified and read them and put them on the
 * bus (record 0262): stored in the inbox (a report stored before stores nothing, record 0150),
 * with the callback's trace, which the bus makes the active one here (record 0153), and the
 * report worker woken. The message is acked once that commit is done; a failure is redelivered,
 * and a message that is no reports at all goes to the dead letters after the bus's attempts.
 */
export async function startSupplierReportsConsumer(options: SupplierReportsConsumerOptions): Promise<Subscription> {
  const { knex, logger } = options;
  const subscription = await options.bus.subscribe({ durable: SUPPLIER_REPORTS_DURABLE, filterSubjects: [SUPPLIER_REPORTS_FILTER] }, async (msg) => {
    const parsed = supplierReportsMessageSchema.safeParse(msg.payload);
    if (!parsed.success) {
      logger.error({ message_id: msg.id, subject: msg.subject, delivery: msg.deliveryCount }, 'message is not supplier reports');
      throw new Error(`message ${msg.id} on ${msg.subject} is not supplier reports`);
    }
    const { vendor, reports, received_at_ms } = parsed.data;
    const stored = await knex.transaction(async (trx) => {
      const count = await storeReports(trx, vendor, reports, received_at_ms, injectTraceContext({}));
      if (count > 0) signalAfterCommit(trx, SUPPLIER_REPORTS_SIGNAL);
      return count;
    });
    logger.debug({ vendor, received: reports.length, stored }, 'supplier reports stored');
  });
  // Callbacks taken by catalogue and not yet in the inbox, beside notifications' event lag (same gauge).
  const stopGauge = observeGauge('connectivity.consumer.lag', { description: 'Events on the bus not yet delivered to the consumer.' }, async () => [
    { value: (await subscription.lag?.()) ?? 0, attributes: { durable: SUPPLIER_REPORTS_DURABLE } },
  ]);
  return {
    ...subscription,
    async stop() {
      stopGauge();
      await subscription.stop();
    },
  };
}
