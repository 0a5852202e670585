import express from 'express';
import { describe, expect, test } from 'vitest';
import { buildService, createLogger, type ServiceConfig, type ServiceDefinition } from '../src/index.ts';
import { createTestBus } from '../src/testing/index.ts';

/** A definition whose background work writes what happens to it in `log`. */
function definition(log: string[], options: { failing?: string } = {}): ServiceDefinition<ServiceConfig, { log: string[] }> {
  const work = (name: string) => ({
    name,
    start: () => {
      if (name === options.failing) throw new Error(`${name} cannot start`);
      log.push(`start ${name}`);
      return { stop: () => Promise.resolve(void log.push(`stop ${name}`)) };
    },
  });
  return {
    name: 'catalogue',
    migrations: { schema: 'unused', migrations: {} },
    loadConfig: () => ({}) as ServiceConfig,
    context: () => ({ log }),
    app: () => express(),
    workers: [work('relay'), work('sweeper')],
    consumers: [work('consumer')],
  };
}

describe('buildService', () => {
  const runtime = async () => ({
    db: { knex: undefined, kind: 'pglite', ping: () => Promise.resolve(), close: () => Promise.resolve() } as never,
    bus: await createTestBus({ kind: 'memory' }),
    logger: createLogger({ name: 't', level: 'silent' }),
  });

  test('builds the app without starting anything; starts workers then consumers in order; stops consumers first, then workers in reverse', async () => {
    const log: string[] = [];
    const started = await buildService(definition(log), await runtime(), {} as ServiceConfig);
    expect(log).toEqual([]);
    await started.startBackground();
    expect(log).toEqual(['start relay', 'start sweeper', 'start consumer']);
    await started.stop();
    expect(log.slice(3)).toEqual(['stop consumer', 'stop sweeper', 'stop relay']);
  });

  test('a piece of work that cannot start stops what did, and the start fails', async () => {
    const log: string[] = [];
    const started = await buildService(definition(log, { failing: 'consumer' }), await runtime(), {} as ServiceConfig);
    await expect(started.startBackground()).rejects.toThrow(/consumer cannot start/);
    expect(log).toEqual(['start relay', 'start sweeper', 'stop sweeper', 'stop relay']);
  });
});
