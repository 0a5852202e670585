import type { SuppliedProfile } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';

export interface SandboxStockOptions {
  /** Profiles asked for per call; the stock is topped up when it falls under half of this. */
  block: number;
  /** Asks catalogue for `count` simulated profiles of `bundle`, for the caller whose order found the stock low. */
  fetch: (caller: Caller, bundle: string, count: number) => Promise<SuppliedProfile[]>;
  /** A background top-up failed (no order was waiting on it); the next order asks again. */
  onTopUpFailed: (error: unknown) => void;
}

export interface SandboxStock {
  /** `quantity` profiles of `bundle` for a sandbox order of `caller`, each handed out once; fewer only if catalogue delivered fewer. */
  take(caller: Caller, bundle: string, quantity: number): Promise<SuppliedProfile[]>;
}

// An order that finds too few profiles waits for this many top-ups at most (each adds a block,
// far more than an order's quantity) before it takes what there is.
const MAX_WAITS = 3;

/**
 * Sandbox profiles are made up by catalogue's simulated supplier, bought from no one and recorded
 * nowhere, so a profile made a minute before its order is the same as one made for it. inventory
 * keeps a stock per bundle and hands profiles out to sandbox orders: one call to catalogue per
 * `block / 2` orders or so instead of one per order. The stock is topped up in the background
 * when it falls under half a block; an order that finds too few waits for the top-up and gets its
 * failure. What is left in stock is dropped with the process: it cost nothing. Live orders never
 * use it: each buys its own profiles, idempotent on the order id.
 */
export function createSandboxStock(options: SandboxStockOptions): SandboxStock {
  const shelves = new Map<string, { profiles: SuppliedProfile[]; topUp: Promise<void> | undefined }>();

  const shelfOf = (bundle: string) => {
    let shelf = shelves.get(bundle);
    if (!shelf) {
      shelf = { profiles: [], topUp: undefined };
      shelves.set(bundle, shelf);
    }
    return shelf;
  };

  /** The top-up in flight for the shelf, or a new one: never two at once per bundle. */
  const topUp = (caller: Caller, bundle: string, shelf: { profiles: SuppliedProfile[]; topUp: Promise<void> | undefined }) =>
    (shelf.topUp ??= options
      .fetch(caller, bundle, options.block)
      .then((profiles) => {
        shelf.profiles.push(...profiles);
      })
      .finally(() => {
        shelf.topUp = undefined;
      }));

  return {
    async take(caller, bundle, quantity) {
      const shelf = shelfOf(bundle);
      for (let waits = 0; shelf.profiles.length < quantity && waits < MAX_WAITS; waits += 1) await topUp(caller, bundle, shelf);
      const taken = shelf.profiles.splice(0, quantity);
      if (shelf.profiles.length < options.block / 2) topUp(caller, bundle, shelf).catch(options.onTopUpFailed);
      return taken;
    },
  };
}
