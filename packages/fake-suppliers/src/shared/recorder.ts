/** One request or response that does not match the vendor's document. */
export interface ViolationRecord {
  at: string;
  method: string;
  path: string;
  status?: number;
  problems: string[];
}

/** One callback the fake sent (or dropped because callbacks are off). */
export interface CallbackRecord {
  at: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The receiver's status, or the error text; "dropped" when callbacks were off. */
  outcome: number | string;
}

export interface Counters {
  /** Successful calls that bought something (orders placed). */
  purchases: number;
  /** eSIM profiles handed out by those purchases. */
  esimsSold: number;
  /** Every request that reached the fake, by "METHOD /documented/path" (faulted and refused ones too). */
  calls: Record<string, number>;
}

/** What a fake saw: calls, purchases, document violations and callbacks, for tests to assert on. */
export class Recorder {
  counters: Counters = { purchases: 0, esimsSold: 0, calls: {} };
  requestViolations: ViolationRecord[] = [];
  responseViolations: ViolationRecord[] = [];
  callbacks: CallbackRecord[] = [];

  call(key: string): void {
    this.counters.calls[key] = (this.counters.calls[key] ?? 0) + 1;
  }

  purchase(esims: number): void {
    this.counters.purchases += 1;
    this.counters.esimsSold += esims;
  }

  reset(): void {
    this.counters = { purchases: 0, esimsSold: 0, calls: {} };
    this.requestViolations = [];
    this.responseViolations = [];
    this.callbacks = [];
  }
}

/** Throws, listing them, when the fake recorded any request (or response) its vendor's document does not allow. */
export function assertNoViolations(
  fake: { control: { violations(): { requests: ViolationRecord[]; responses: ViolationRecord[] } } },
  which: 'requests' | 'responses' | 'both' = 'requests',
): void {
  const { requests, responses } = fake.control.violations();
  const found = [...(which === 'responses' ? [] : requests), ...(which === 'requests' ? [] : responses)];
  if (found.length === 0) return;
  const lines = found.map((v) => `${v.method} ${v.path}${v.status ? ` -> ${v.status}` : ''}: ${v.problems.join('; ')}`);
  throw new Error(`${found.length} exchange(s) do not match the vendor's document:\n${lines.join('\n')}`);
}

/** Runs `work` as a promise: a throw becomes a rejection, as from any async control call. */
export const settle = <T>(work: () => T): Promise<T> => new Promise<T>((resolve) => resolve(work()));
