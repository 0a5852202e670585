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
}): Batcher<In, Out> {
  type Waiting = { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let busy = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, options.max);
      queue = queue.slice(batch.length);
      try {
        const outcomes = await options.run(batch.map((waiting) => waiting.item));
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
        queue.push({ item, resolve, reject });
        if (busy) return;
        busy = true;
        // The rest of this turn's calls join the first batch.
        setImmediate(() => void drain());
      });
    },
  };
}
