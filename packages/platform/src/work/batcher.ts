import { context, SpanKind, trace, type Context, type Link } from '@opentelemetry/api';

const tracer = trace.getTracer('@connectivity/platform/work');

/**
 * Turns concurrent calls into batches, one batch at a time (group commit): the calls made in one
 * turn of the event loop go out together, and the calls made while a batch is running go out
 * together as soon as it ends. A lone call waits only for the end of its turn; under load each
 * round trip carries as many calls as arrived during the last one.
 */
export interface Batcher<In, Out> {
  /** Resolves with this item's result, or rejects with the error of its batch. */
  add(item: In): Promise<Out>;
}

export function createBatcher<In, Out>(options: {
  /**
   * Runs a batch; gives one outcome per item, in the items' order (an item may fail alone). A
   * rejection fails every item of the batch.
   */
  run(items: In[]): Promise<PromiseSettledResult<Out>[]>;
  /** Items per batch at most; the rest wait for the next. */
  max: number;
  /**
   * Names the span a batch of two or more runs in. A batch runs in the trace of its first item
   * (so does its query's span), the span linked to every other item's trace: each round trip is
   * in one trace, never in that of a call that merely started the loop that sent it.
   */
  name?: string;
}): Batcher<In, Out> {
  type Waiting = { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void; context: Context };
  const name = options.name ?? 'batch';

  /** `run` in the context of the batch's first item, in a span linked to the others' when there are others. */
  const runTraced = (batch: Waiting[]): Promise<PromiseSettledResult<Out>[]> => {
    const items = batch.map((waiting) => waiting.item);
    const first = batch[0]?.context ?? context.active();
    if (batch.length === 1) return context.with(first, () => options.run(items));
    const links: Link[] = [];
    for (const waiting of batch.slice(1)) {
      const spanContext = trace.getSpanContext(waiting.context);
      if (spanContext && trace.isSpanContextValid(spanContext)) links.push({ context: spanContext });
    }
    return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, links, attributes: { 'batch.size': batch.length } }, first, async (span) => {
      try {
        return await options.run(items);
      } finally {
        span.end();
      }
    });
  };
  let queue: Waiting[] = [];
  let busy = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, options.max);
      queue = queue.slice(batch.length);
      try {
        const outcomes = await runTraced(batch);
        if (outcomes.length !== batch.length) throw new Error(`batch of ${batch.length} gave ${outcomes.length} outcomes`);
        batch.forEach((waiting, index) => {
          const outcome = outcomes[index] as PromiseSettledResult<Out>;
          if (outcome.status === 'fulfilled') waiting.resolve(outcome.value);
          else waiting.reject(outcome.reason);
        });
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    busy = false;
  }

  return {
    add(item) {
      return new Promise<Out>((resolve, reject) => {
        queue.push({ item, resolve, reject, context: context.active() });
        if (busy) return;
        busy = true;
        // The rest of this turn's calls join the first batch.
        setImmediate(() => void drain());
      });
    },
  };
}

/**
 * A batcher for writes keyed by a unique key (group commit of upserts): a batch of distinct keys
 * goes out as ONE statement (`many`), which may leave an item undecided (undefined); an item
 * whose key is already in the batch, an undecided one, and every item of a batch whose statement
 * failed are then settled alone (`one`), in arrival order. A lone item goes out alone.
 */
export function groupCommit<In, Out>(options: {
  name: string;
  max: number;
  keyOf: (item: In) => string;
  one: (item: In) => Promise<Out>;
  many: (items: In[]) => Promise<(Out | undefined)[]>;
}): Batcher<In, Out> {
  return createBatcher<In, Out>({
    name: options.name,
    max: options.max,
    run: async (items) => {
      const decided: (Out | undefined)[] = items.map(() => undefined);
      if (items.length > 1) {
        const seen = new Set<string>();
        const distinct: number[] = [];
        items.forEach((item, index) => {
          const key = options.keyOf(item);
          if (seen.has(key)) return;
          seen.add(key);
          distinct.push(index);
        });
        const outcomes = await options.many(distinct.map((index) => items[index] as In)).catch(() => []);
        distinct.forEach((index, at) => {
          decided[index] = outcomes[at];
        });
      }
      const results: PromiseSettledResult<Out>[] = [];
      for (const [index, item] of items.entries()) {
        const outcome = decided[index];
        if (outcome !== undefined) {
          results.push({ status: 'fulfilled', value: outcome });
          continue;
        }
        try {
          results.push({ status: 'fulfilled', value: await options.one(item) });
        } catch (reason) {
          results.push({ status: 'rejected', reason });
        }
      }
      return results;
    },
  });
}
