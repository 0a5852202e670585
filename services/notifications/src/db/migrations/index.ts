import { idempotencyMigration, type MigrationSet } from '@connectivity/platform';
import * as init from './0001_init.ts';
import * as sealedSecrets from './0002_sealed_secrets_and_retention.ts';
import * as eventTraceContext from './0003_event_trace_context.ts';
import * as eventTimeOrder from './0005_event_time_order.ts';
import * as streamEntries from './0006_stream_entries.ts';
import * as attemptErrorClasses from './0007_attempt_error_classes.ts';
import * as boundedReplays from './0008_bounded_replays.ts';
import * as streamLeases from './0009_stream_leases.ts';
import * as fairDeliveryClaims from './0010_fair_delivery_claims.ts';
import * as endpointCircuit from './0011_endpoint_circuit.ts';
import { SCHEMA } from '../schema.ts';

export const migrations: MigrationSet = {
  schema: SCHEMA,
  migrations: {
    '0001_init': init,
    '0002_sealed_secrets_and_retention': sealedSecrets,
    '0003_event_trace_context': eventTraceContext,
    '0004_idempotency': idempotencyMigration(SCHEMA),
    '0005_event_time_order': eventTimeOrder,
    '0006_stream_entries': streamEntries,
    '0007_attempt_error_classes': attemptErrorClasses,
    '0008_bounded_replays': boundedReplays,
    '0009_stream_leases': streamLeases,
    '0010_fair_delivery_claims': fairDeliveryClaims,
    '0011_endpoint_circuit': endpointCircuit,
  },
};
