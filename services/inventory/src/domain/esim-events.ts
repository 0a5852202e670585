import type { EsimState, EventType, UsageThreshold } from '@connectivity/contracts';
import { STATE_EVENT_TYPES, toPublicEsim, type EsimRecord } from './esim.ts';

/** What one change of an eSIM announces, in order. */
export type EsimChange =
  { kind: 'state'; esim: EsimRecord; previous_state: EsimState | null } | { kind: 'threshold'; esim: EsimRecord; threshold_percent: UsageThreshold };

/** The type of the event a change announces: the state moved into, or a usage threshold. */
export const esimEventType = (change: EsimChange): EventType => (change.kind === 'state' ? STATE_EVENT_TYPES[change.esim.state] : 'esim.usage.threshold');

/** The `data` of the event a change announces: the eSIM as the change left it, and what changed. */
export function esimEventData(change: EsimChange): Record<string, unknown> {
  const object = toPublicEsim(change.esim);
  if (change.kind === 'state') return { object, previous_state: change.previous_state };
  return {
    object,
    threshold_percent: change.threshold_percent,
    data_used_bytes: change.esim.data_used_bytes,
    data_limit_bytes: change.esim.data_limit_bytes,
  };
}
