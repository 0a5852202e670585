import { randomUUID } from 'node:crypto';
import { errorMessage, signalWork, type Bus, type Logger, type Stoppable } from '@connectivity/platform';
import { streamGrowthSignal, type StreamScope } from '../db/stream-repository.ts';

/**
 * Open streams are woken when their account's stream grows, not by a tight poll. Every instance
 * may serve a stream while another one stores its events (one durable consumer shares the work),
 * so the news crosses processes as a bus notice; within a process it is a work signal, and an
 * instance ignores the echo of its own notices. A lost notice costs one safety poll's wait.
 */
export const STREAM_NOTICE_SUBJECT = 'control.notifications.stream';

interface StreamNotice {
  from: string;
  account_id: string;
  environment: string;
}

const INSTANCE = randomUUID();

// Other instances hear of a scope's growth at most once per window: the first growth at once,
// any further growth in the window in one notice at its end. Under a burst of one account's
// events that is one notice per window instead of one per event (each a publish here, a
// message to every instance and a parse there, a fifth of the consumer's work per event).
const NOTICE_WINDOW_MS = 25;
interface NoticeWindow {
  scope: StreamScope;
  grewAgain: boolean;
  timer: NodeJS.Timeout;
}
const windows = new WeakMap<Bus, Map<string, NoticeWindow>>();

/** Tells the streams of every instance that the scope's stream grew (after the commit that grew it). */
export function announceStreamGrowth(bus: Bus, logger: Logger, scope: StreamScope): void {
  const name = streamGrowthSignal(scope);
  signalWork(name);
  let open = windows.get(bus);
  if (!open) {
    open = new Map();
    windows.set(bus, open);
  }
  const window = open.get(name);
  if (window) {
    window.grewAgain = true;
    return;
  }
  noticeOthers(bus, logger, scope, open, name);
}

/**
 * Sends the notices still held for the end of their window now, and closes every window: for a
 * consumer that stops, before its bus closes (a window ending after that would notify a closed bus).
 */
export function flushStreamNotices(bus: Bus, logger: Logger): void {
  const open = windows.get(bus);
  if (!open) return;
  for (const [name, window] of open) {
    clearTimeout(window.timer);
    open.delete(name);
    if (window.grewAgain) send(bus, logger, window.scope);
  }
}

/** Sends the scope's notice now and opens its window; a growth within it is noticed at its end. */
function noticeOthers(bus: Bus, logger: Logger, scope: StreamScope, open: Map<string, NoticeWindow>, name: string): void {
  send(bus, logger, scope);
  const window: NoticeWindow = {
    scope,
    grewAgain: false,
    timer: setTimeout(() => {
      open.delete(name);
      if (window.grewAgain) noticeOthers(bus, logger, scope, open, name);
    }, NOTICE_WINDOW_MS).unref(),
  };
  open.set(name, window);
}

function send(bus: Bus, logger: Logger, scope: StreamScope): void {
  const notice: StreamNotice = { from: INSTANCE, account_id: scope.accountId, environment: scope.environment };
  const warn = (error: unknown) => logger.warn({ err: errorMessage(error) }, 'stream notice not sent; other instances see the events at their next poll');
  try {
    bus.notify(STREAM_NOTICE_SUBJECT, notice).catch(warn);
  } catch (error) {
    // A bus refuses synchronously once closed.
    warn(error);
  }
}

/**
 * Hears the other instances' notices and wakes this instance's streams of their scope. If the
 * bus refuses the subscription the streams still see every event, at their safety poll.
 */
export async function startStreamNoticeListener(options: { bus: Bus; logger: Logger }): Promise<Stoppable> {
  try {
    return await options.bus.listen<StreamNotice>(STREAM_NOTICE_SUBJECT, (notice) => {
      if (notice.from === INSTANCE) return;
      signalWork(streamGrowthSignal({ accountId: notice.account_id, environment: notice.environment }));
    });
  } catch (error) {
    options.logger.error({ err: errorMessage(error) }, 'listening for stream notices failed; streams poll');
    return { stop: () => Promise.resolve() };
  }
}
