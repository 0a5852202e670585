/** Headers between the bus's records and NATS messages. */
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { MsgHdrs } from '@nats-io/transport-node';

/**
 * Dead letters keep the original message id for the reader, but need their own JetStream
 * message id: two durables may dead-letter the same message into the one dead-letter stream.
 */
export const BUS_MSG_ID_HEADER = 'Bus-Msg-Id';

export function headersToRecord(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const [key, values] of h) {
    if (key.toLowerCase().startsWith('nats-') || key === BUS_MSG_ID_HEADER) continue;
    const value = values[0];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function recordToHeaders(record: Record<string, string>): MsgHdrs {
  const h = natsHeaders();
  for (const [key, value] of Object.entries(record)) h.set(key, value);
  return h;
}
