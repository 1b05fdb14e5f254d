import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  advance,
  calculated,
  type Desired,
  displayedAction,
  type Effect,
  INSTANT_TIMING,
  isStable,
  isVersionReached,
  type ManagedMember,
  type NewMember,
  REALISTIC_TIMING,
  type RolloutPolicy,
  type UpdateAction,
} from './rollout.ts';

const T0 = Date.UTC(2026, 0, 1);
const OLD = 'projects/p/global/instanceTemplates/old';
const NEW = 'projects/p/global/instanceTemplates/new';

/** names hands out members vm-1, vm-2, … so each test reads them in order. */
function names(): NewMember {
  let next = 0;
  return (template) => {
    next += 1;
    return { id: String(next), instance: `projects/p/zones/z/instances/new-${next}`, template, action: 'CREATING' };
  };
}

const running = (count: number, template = OLD): ManagedMember[] =>
  Array.from({ length: count }, (_, i) => ({ id: `o${i + 1}`, instance: `projects/p/zones/z/instances/old-${i + 1}`, template, action: 'NONE' }));

function desired(policy: Partial<RolloutPolicy>, targetSize = 3, needed: [string, UpdateAction][] = []): Desired {
  return {
    targetSize,
    template: NEW,
    needed: new Map(needed),
    policy: {
      type: 'PROACTIVE',
      minimalAction: 'REPLACE',
      mostDisruptiveAllowedAction: 'REPLACE',
      replacementMethod: 'SUBSTITUTE',
      maxSurge: 1,
      maxUnavailable: 1,
      ...policy,
    },
  };
}

const short = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const view = (members: readonly ManagedMember[]) =>
  members.map((m) => `${short(m.instance)}:${displayedAction(m)}${m.stage === undefined ? '' : `/${m.stage}`}`);

/** Step is the group after the updater ran to one of its due times. */
interface Step {
  readonly at: number;
  readonly members: readonly ManagedMember[];
  readonly effects: readonly Effect[];
}

/** run drives the updater from `members` at T0 through every due time until it has nothing left, as the service's timers do. */
function run(members: readonly ManagedMember[], want: Desired, timing = REALISTIC_TIMING): Step[] {
  const newMember = names();
  const steps: Step[] = [];
  let at = T0;
  let current = members;
  for (let i = 0; i < 200; i++) {
    const rollout = advance(current, want, at, timing, newMember);
    steps.push({ at, members: rollout.members, effects: rollout.effects });
    current = rollout.members;
    if (rollout.nextDue === undefined) return steps;
    at = rollout.nextDue;
  }
  assert.fail('the update did not finish');
}

/** up counts the members whose instance serves (RUNNING and not being taken down). */
const up = (members: readonly ManagedMember[]) => members.filter((m) => m.action === 'NONE' || m.stage === 'VERIFYING' || m.stage === 'REFRESHING').length;
const live = (members: readonly ManagedMember[]) => members.filter((m) => m.action !== 'DELETING').length;

describe('the managed instance group updater', () => {
  it('creates a new group’s instances PROVISIONING, then STAGING, RUNNING while VERIFYING, then NONE, on the clock', () => {
    const steps = run([], desired({ type: 'OPPORTUNISTIC' }, 2));
    assert.deepEqual(
      steps.map((s) => [s.at - T0, view(s.members)]),
      [
        [0, ['new-1:CREATING/PROVISIONING', 'new-2:CREATING/PROVISIONING']],
        [5_000, ['new-1:CREATING/STAGING', 'new-2:CREATING/STAGING']],
        [20_000, ['new-1:VERIFYING/VERIFYING', 'new-2:VERIFYING/VERIFYING']],
        [30_000, ['new-1:NONE', 'new-2:NONE']],
      ],
    );
    assert.deepEqual(
      steps.flatMap((s) => s.effects.map((e) => (e.kind === 'status' ? `${short(e.instance)} ${e.status}` : `${e.kind} ${short(e.instance)}`))),
      ['create new-1', 'create new-2', 'new-1 STAGING', 'new-2 STAGING', 'new-1 RUNNING', 'new-2 RUNNING'],
    );
    assert.equal(isStable(steps[2]!.members, 2), false);
    assert.equal(isStable(steps[3]!.members, 2), true);
  });

  it('with instant timing, one catch-up does everything', () => {
    const rollout = advance(running(3), desired({ maxSurge: 1, maxUnavailable: 0 }), T0, INSTANT_TIMING, names());
    assert.deepEqual(view(rollout.members), ['new-1:NONE', 'new-2:NONE', 'new-3:NONE']);
    assert.equal(rollout.nextDue, undefined);
    assert.equal(rollout.effects.filter((e) => e.kind === 'remove').length, 3);
  });

  it('maxSurge 1, maxUnavailable 0: one surge instance at a time, never fewer than the target serving', () => {
    const steps = run(running(3), desired({ maxSurge: 1, maxUnavailable: 0 }));
    for (const step of steps) {
      assert.ok(live(step.members) <= 4, `${step.at - T0}: ${view(step.members)}`);
      assert.ok(up(step.members) >= 3, `${step.at - T0}: ${view(step.members)}`);
    }
    assert.deepEqual(view(steps[0]!.members), ['old-1:NONE', 'old-2:NONE', 'old-3:NONE', 'new-1:CREATING/PROVISIONING']);
    // Once new-1 serves, old-1 goes and new-2 comes.
    const next = steps.find((s) => s.members.some((m) => m.action === 'DELETING'))!;
    assert.deepEqual(view(next.members), ['old-1:DELETING/STOPPING', 'old-2:NONE', 'old-3:NONE', 'new-1:VERIFYING/VERIFYING', 'new-2:CREATING/PROVISIONING']);
    const last = steps.at(-1)!.members;
    assert.deepEqual(view(last), ['new-1:NONE', 'new-2:NONE', 'new-3:NONE']);
    assert.equal(isVersionReached(last, NEW), true);
    assert.equal(isVersionReached(steps[0]!.members, NEW), false);
  });

  it('maxSurge 1, maxUnavailable 1: a surge instance and a deletion at once, then the next pair', () => {
    const steps = run(running(3), desired({ maxSurge: 1, maxUnavailable: 1 }));
    assert.deepEqual(view(steps[0]!.members), [
      'old-1:DELETING/STOPPING',
      'old-2:NONE',
      'old-3:NONE',
      'new-1:CREATING/PROVISIONING',
      'new-2:CREATING/PROVISIONING',
    ]);
    for (const step of steps) {
      assert.ok(live(step.members) <= 4);
      assert.ok(up(step.members) >= 2);
    }
    assert.deepEqual(view(steps.at(-1)!.members), ['new-1:NONE', 'new-2:NONE', 'new-3:NONE']);
  });

  it('maxSurge 0, maxUnavailable 2 of 4: two down at a time and their substitutes made, no surge', () => {
    const steps = run(running(4), desired({ maxSurge: 0, maxUnavailable: 2 }, 4));
    assert.deepEqual(
      view(steps[0]!.members).filter((m) => !m.endsWith(':NONE')),
      ['old-1:DELETING/STOPPING', 'old-2:DELETING/STOPPING', 'new-1:CREATING/PROVISIONING', 'new-2:CREATING/PROVISIONING'],
    );
    for (const step of steps) assert.ok(live(step.members) <= 4 && up(step.members) >= 2);
    assert.equal(steps.at(-1)!.members.length, 4);
  });

  it('RECREATE replaces under the same names, one at a time', () => {
    const steps = run(running(2), desired({ replacementMethod: 'RECREATE', maxSurge: 0, maxUnavailable: 1 }, 2));
    assert.deepEqual(view(steps[0]!.members), ['old-1:RECREATING/STOPPING', 'old-2:NONE']);
    const effects = steps.flatMap((s) => s.effects.map((e) => `${e.kind} ${short(e.instance)}`));
    assert.deepEqual(effects.slice(0, 3), ['status old-1', 'remove old-1', 'create old-1']);
    const last = steps.at(-1)!.members;
    assert.deepEqual(
      last.map((m) => [short(m.instance), m.template, m.action]),
      [
        ['old-1', NEW, 'NONE'],
        ['old-2', NEW, 'NONE'],
      ],
    );
  });

  it('what a template change needs, at least minimalAction, at most mostDisruptiveAllowedAction', () => {
    const restart: [string, UpdateAction][] = [[OLD, 'RESTART']];
    // The default minimalAction REPLACE replaces even a change a restart would do.
    assert.equal(advance(running(1), desired({}, 1, restart), T0, REALISTIC_TIMING, names()).members.length, 2);
    // minimalAction RESTART restarts in place: STOPPING, then STAGING with the new template, RUNNING.
    const restarted = run(running(1), desired({ minimalAction: 'RESTART', maxSurge: 0 }, 1, restart));
    assert.deepEqual(view(restarted[0]!.members), ['old-1:RESTARTING/STOPPING']);
    assert.deepEqual(
      restarted[1]!.effects.map((e) => e.kind),
      ['retemplate', 'status'],
    );
    assert.deepEqual(view(restarted.at(-1)!.members), ['old-1:NONE']);
    // A change that needs a replacement is not made when at most a restart is allowed.
    const held = advance(running(1), desired({ mostDisruptiveAllowedAction: 'RESTART' }, 1), T0, REALISTIC_TIMING, names());
    assert.deepEqual(view(held.members), ['old-1:NONE']);
    assert.equal(isVersionReached(held.members, NEW), false);
    // A metadata-only change with minimalAction NONE refreshes every instance at once, none of them stopped.
    const refreshed = run(running(3), desired({ minimalAction: 'NONE', maxUnavailable: 1 }, 3, [[OLD, 'REFRESH']]));
    assert.deepEqual(view(refreshed[0]!.members), ['old-1:REFRESHING/REFRESHING', 'old-2:REFRESHING/REFRESHING', 'old-3:REFRESHING/REFRESHING']);
    assert.equal(
      refreshed.flatMap((s) => s.effects).some((e) => e.kind === 'status'),
      false,
    );
  });

  it('OPPORTUNISTIC leaves out-of-date instances alone and only resizes; a smaller target takes the instances not yet up first', () => {
    const grown = advance(running(2), desired({ type: 'OPPORTUNISTIC' }, 3), T0, REALISTIC_TIMING, names());
    assert.deepEqual(view(grown.members), ['old-1:NONE', 'old-2:NONE', 'new-1:CREATING/PROVISIONING']);
    const shrunk = advance(grown.members, desired({ type: 'OPPORTUNISTIC' }, 2), T0 + 1, REALISTIC_TIMING, names());
    assert.deepEqual(view(shrunk.members), ['old-1:NONE', 'old-2:NONE', 'new-1:DELETING/STOPPING']);
  });

  it('deleteInstances and recreateInstances mark members the updater then starts', () => {
    const marked: ManagedMember[] = [
      { ...running(1)[0]!, action: 'DELETING' },
      { ...running(2)[1]!, action: 'RECREATING', template: NEW },
    ];
    const rollout = advance(marked, desired({ type: 'OPPORTUNISTIC' }, 1), T0, REALISTIC_TIMING, names());
    assert.deepEqual(view(rollout.members), ['old-1:DELETING/STOPPING', 'old-2:RECREATING/STOPPING']);
  });

  it('maxSurge and maxUnavailable as percents are the target size’s share, rounded up', () => {
    assert.equal(calculated({ percent: 25 }, 10, 1), 3);
    assert.equal(calculated({ fixed: 0 }, 10, 1), 0);
    assert.equal(calculated(undefined, 10, 3), 3);
  });
});
