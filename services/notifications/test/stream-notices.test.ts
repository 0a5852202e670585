import { createLogger, onWork, type Bus } from '@connectivity/platform';
import { createTestBus, eventually } from '@connectivity/platform/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { STREAM_NOTICE_SUBJECT, announceStreamGrowth, flushStreamNotices } from '../src/consumers/stream-notices.ts';

const logger = createLogger({ name: 'stream-notices-test', level: 'silent' });
let bus: Bus;
beforeAll(async () => {
  bus = await createTestBus();
});
afterAll(async () => {
  await bus.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('tells other instances of a burst of growth in a leading and a trailing notice, and this instance of each growth at once', async () => {
  const scope = { accountId: `acct_notices${Date.now()}`, environment: 'test' as const };
  const notices: unknown[] = [];
  const listening = await bus.listen<{ account_id: string }>(STREAM_NOTICE_SUBJECT, (notice) => {
    if (notice.account_id === scope.accountId) notices.push(notice);
  });
  let local = 0;
  const stopLocal = onWork(`event-stream:${scope.environment}:${scope.accountId}`, () => (local += 1));
  try {
    for (let i = 0; i < 20; i += 1) announceStreamGrowth(bus, logger, scope);
    expect(local).toBe(20);
    await sleep(200);
    // The first at once, the other 19 in one notice at the end of the window: the last growth is never left untold.
    expect(notices).toHaveLength(2);
    // A quiet window later, a growth is told at once again.
    announceStreamGrowth(bus, logger, scope);
    await sleep(200);
    expect(notices).toHaveLength(3);
  } finally {
    stopLocal();
    await listening.stop();
  }
});

it('a consumer that stops tells the growth it still held at once, and nothing is sent after its bus closed', async () => {
  const own = await createTestBus();
  const scope = { accountId: `acct_flush${Date.now()}`, environment: 'test' as const };
  const notices: unknown[] = [];
  const listening = await own.listen<{ account_id: string }>(STREAM_NOTICE_SUBJECT, (notice) => {
    if (notice.account_id === scope.accountId) notices.push(notice);
  });
  const warnings: string[] = [];
  const recording = { ...logger, warn: (obj: unknown, msg?: string) => void warnings.push(msg ?? String(obj)) } as unknown as typeof logger;
  // What the code hands to the bus, counted as it is handed over (delivery takes a round trip).
  const handed: unknown[] = [];
  const counting = Object.assign(Object.create(own) as Bus, {
    notify: (subject: string, payload: unknown) => {
      handed.push(payload);
      return own.notify(subject, payload);
    },
  });
  announceStreamGrowth(counting, recording, scope);
  announceStreamGrowth(counting, recording, scope);
  expect(handed).toHaveLength(1);
  flushStreamNotices(counting, recording);
  // The held growth is sent by the flush itself, at once, not at the window's end (25 ms on)...
  expect(handed).toHaveLength(2);
  // ...and both arrive; the window was closed, so its end sends nothing more.
  await eventually(() => expect(notices).toHaveLength(2), 5_000, 5);
  await sleep(100);
  expect(notices).toHaveLength(2);
  await listening.stop();
  await own.close();
  // Nor is anything tried on the closed bus later (a send would be logged as a warning).
  await sleep(100);
  expect(warnings).toEqual([]);
});
