import assert from 'node:assert/strict';
import { it } from 'node:test';
import { StepTimers } from '../lib/testing/step-timers.ts';
import type { StartSingleton } from '../store/leader.ts';
import { LocalLeases } from '../store/local-leases.ts';
import { Singletons } from './singletons.ts';

it('Singletons simply runs the work in a process that owns its store, and stops all of it on close', async () => {
  const entries: string[] = [];
  const work =
    (name: string): StartSingleton =>
    () => {
      entries.push(`${name} started`);
      return { stop: () => void entries.push(`${name} stopped`) };
    };
  const singletons = new Singletons(new LocalLeases(), { timers: new StepTimers() });
  assert.equal(singletons.holder, 'this-process');
  const expiry = await singletons.run('event-expiry', work('expiry'));
  const retention = await singletons.run('retention', work('retention'));
  assert.deepEqual([expiry.running, retention.running], [true, true]);
  await expiry.stop();
  await singletons.close();
  assert.deepEqual([expiry.running, retention.running], [false, false]);
  assert.deepEqual(entries, ['expiry started', 'retention started', 'expiry stopped', 'retention stopped']);
});
