import { randomBytes } from 'node:crypto';
import { ConfigError } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createSecretBox, keyIdOf, keyIdOfSealed } from '../src/domain/secret-box.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount, type Caller } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver?.close();
});

const newKey = () => randomBytes(32);
const hex = (key: Buffer) => key.toString('hex');

/** Every endpoint row's sealed secret, deleted endpoints included. */
async function sealedRows(h: Harness): Promise<{ id: string; secret_sealed: string; secret: string | null }[]> {
  return (await h.db.knex('notifications.endpoints').select('id', 'secret_sealed', 'secret').orderBy('id')) as never;
}

/** Publishes one event for `me` and waits until the receiver verified its delivery at `path`. */
async function deliveredAndVerified(h: Harness, me: Caller, path: string): Promise<void> {
  const event = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
  await eventually(() => receiver.hits(path).some((r) => r.id === event.id), 10_000, `the delivery to ${path}`);
  expect(receiver.rejected.filter((r) => r.path === path)).toEqual([]);
}

describe('rotating WEBHOOK_SECRET_KEY', () => {
  it('re-seals every secret with the new key at start; deliveries still verify, and the old key is no longer needed', async () => {
    const [oldKey, rotated, unrelated] = [newKey(), newKey(), newKey()];
    const h = await Harness.create({ WEBHOOK_SECRET_KEY: hex(oldKey) });
    try {
      const me = caller(newAccount(), 'test');
      const first = await h.start();
      const kept = await h.endpoint(me, receiver.url('/rotated'));
      receiver.secret('/rotated', kept.secret);
      const removed = await h.endpoint(me, receiver.url('/rotated-removed'));
      expect((await h.delete(me, `/v1/webhooks/${removed.id}`)).status).toBe(200);
      await h.stop(first);

      // Hex and base64 alike, with spaces after commas, an unrelated old key beside the one that matters.
      const previous = `${unrelated.toString('base64')}, ${hex(oldKey)}`;
      const second = await h.start({ WEBHOOK_SECRET_KEY: hex(rotated), WEBHOOK_SECRET_KEY_PREVIOUS: previous });
      const rows = await sealedRows(h);
      expect(rows.map((row) => row.id)).toEqual([kept.id, removed.id].sort());
      for (const row of rows) {
        expect(row.secret).toBeNull();
        expect(keyIdOfSealed(row.secret_sealed)).toBe(keyIdOf(rotated));
      }
      await deliveredAndVerified(h, me, '/rotated');
      await h.stop(second);

      // Without the old key at all: nothing still needs it.
      await h.start({ WEBHOOK_SECRET_KEY: hex(rotated) });
      await deliveredAndVerified(h, me, '/rotated');
      const opened = createSecretBox(rotated).open((await sealedRows(h)).find((row) => row.id === kept.id)!.secret_sealed, kept.id);
      expect(opened).toBe(kept.secret);
    } finally {
      await h.close();
    }
  });

  it('still refuses to start on a key id it holds no key for, and re-seals nothing then', async () => {
    const [keyA, keyB, keyC] = [newKey(), newKey(), newKey()];
    const h = await Harness.create({ WEBHOOK_SECRET_KEY: hex(keyA) });
    try {
      const me = caller(newAccount(), 'test');
      const first = await h.start();
      const sealedA = await h.endpoint(me, receiver.url('/unknown-a'));
      const sealedB = await h.endpoint(me, receiver.url('/unknown-b'));
      await h.stop(first);
      // As an instance rotated to key B would have left it.
      await h.db
        .knex('notifications.endpoints')
        .where({ id: sealedB.id })
        .update({ secret_sealed: createSecretBox(keyB).seal(sealedB.secret, sealedB.id) });
      const before = await sealedRows(h);

      const failure: unknown = await h.start({ WEBHOOK_SECRET_KEY: hex(keyC), WEBHOOK_SECRET_KEY_PREVIOUS: hex(keyA) }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ConfigError);
      const message = (failure as Error).message;
      expect(message).toContain(`1 endpoint(s) sealed with key ${keyIdOf(keyB)}`);
      expect(message).toContain('WEBHOOK_SECRET_KEY_PREVIOUS');
      expect(message).not.toContain(keyIdOf(keyA));
      expect(h.instances).toHaveLength(0);
      expect(await sealedRows(h)).toEqual(before);
      expect(keyIdOfSealed(before.find((row) => row.id === sealedA.id)!.secret_sealed)).toBe(keyIdOf(keyA));
    } finally {
      await h.close();
    }
  });
});

describe('WEBHOOK_SECRET_KEY_PREVIOUS', () => {
  const base = { INTERNAL_TOKEN: 'test-internal-token-0123456789', CURSOR_SECRET: hex(newKey()), DATA_DIR: 'memory://' };

  it('is a comma-separated list of 32-byte keys in hex or base64, empty by default', () => {
    const [a, b] = [newKey(), newKey()];
    expect(loadConfig(base).WEBHOOK_SECRET_KEY_PREVIOUS).toEqual([]);
    expect(loadConfig({ ...base, WEBHOOK_SECRET_KEY_PREVIOUS: '' }).WEBHOOK_SECRET_KEY_PREVIOUS).toEqual([]);
    expect(loadConfig({ ...base, WEBHOOK_SECRET_KEY_PREVIOUS: ` ${hex(a)} ,${b.toString('base64')}` }).WEBHOOK_SECRET_KEY_PREVIOUS).toEqual([a, b]);
  });

  it('names a bad entry by its position, never by its value', () => {
    const bad = randomBytes(16).toString('hex');
    const attempt = () => loadConfig({ ...base, WEBHOOK_SECRET_KEY_PREVIOUS: `${hex(newKey())},${bad}` });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/WEBHOOK_SECRET_KEY_PREVIOUS: key 2 must be 32 bytes/);
    expect(attempt).not.toThrow(new RegExp(bad));
  });
});

describe('a secret box with previous keys', () => {
  const [current, previous] = [newKey(), newKey()];
  const box = createSecretBox(current, [previous, current]);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;

  it('opens what a previous key sealed, seals only with the current key', () => {
    expect(box.open(createSecretBox(previous).seal(secret, 'we_a'), 'we_a')).toBe(secret);
    expect(keyIdOfSealed(box.seal(secret, 'we_a'))).toBe(keyIdOf(current));
    expect(box.previousKeyIds).toEqual([keyIdOf(previous)]);
  });

  it('still refuses a key it does not hold, and a value moved to another row', () => {
    expect(() => box.open(createSecretBox(newKey()).seal(secret, 'we_a'), 'we_a')).toThrow(/not the configured key/);
    expect(() => box.open(createSecretBox(previous).seal(secret, 'we_a'), 'we_b')).toThrow(/failed authentication/);
  });
});
