/**
 * The managed instance group's updater as a pure function of the group and the clock: which
 * instances it creates, deletes, recreates, restarts or refreshes, in waves bounded by the update
 * policy's maxSurge and maxUnavailable, and how each of those actions walks its instance through
 * the instance's states (PROVISIONING → STAGING → RUNNING, STOPPING → gone) on the clock.
 * ManagerService keeps the result and carries out its effects on the instances.
 */
import type { InstanceStatus } from '../instances/instance.ts';

/** ManagedAction is a member's `currentAction` as the group keeps it (VERIFYING is shown from its stage). */
export type ManagedAction = 'CREATING' | 'DELETING' | 'RECREATING' | 'RESTARTING' | 'REFRESHING' | 'NONE';

/** MemberStage is where a member is in its action; each stage lasts its Timing. */
export type MemberStage = 'STOPPING' | 'PROVISIONING' | 'STAGING' | 'VERIFYING' | 'REFRESHING';

/** ManagedMember is one instance of a group: its path, the template it is (or is being) made from, what the group is doing to it. */
export interface ManagedMember {
  readonly id: string;
  /** `projects/p/zones/Z/instances/NAME` */
  readonly instance: string;
  readonly template: string;
  readonly action: ManagedAction;
  /** The stage of `action` (absent when NONE, or when the action is yet to start). */
  readonly stage?: MemberStage;
  /** When `stage` ends, on the clock. */
  readonly due?: number;
}

/** UpdateAction is how disruptive an update of one instance is (minimalAction, mostDisruptiveAllowedAction). */
export type UpdateAction = 'NONE' | 'REFRESH' | 'RESTART' | 'REPLACE';
const DISRUPTION: Readonly<Record<UpdateAction, number>> = { NONE: 0, REFRESH: 1, RESTART: 2, REPLACE: 3 };

/** Timing is how long each stage lasts, in milliseconds on the clock (all zero when Operations are instant). */
export interface Timing {
  readonly provisioning: number;
  readonly staging: number;
  readonly verifying: number;
  readonly stopping: number;
  readonly refreshing: number;
}

/** REALISTIC_TIMING is a VM's pace: some seconds provisioning, tens staging, a short check once RUNNING. */
export const REALISTIC_TIMING: Timing = { provisioning: 5_000, staging: 15_000, verifying: 10_000, stopping: 20_000, refreshing: 5_000 };

/** INSTANT_TIMING finishes every action at once. */
export const INSTANT_TIMING: Timing = { provisioning: 0, staging: 0, verifying: 0, stopping: 0, refreshing: 0 };

/** RolloutPolicy is the group's updatePolicy, its maxSurge and maxUnavailable already calculated. */
export interface RolloutPolicy {
  readonly type: 'OPPORTUNISTIC' | 'PROACTIVE';
  readonly minimalAction: UpdateAction;
  readonly mostDisruptiveAllowedAction: UpdateAction;
  readonly replacementMethod: 'SUBSTITUTE' | 'RECREATE';
  readonly maxSurge: number;
  readonly maxUnavailable: number;
}

/** Desired is what the group is to become. */
export interface Desired {
  readonly targetSize: number;
  /** The template every instance is to have. */
  readonly template: string;
  readonly policy: RolloutPolicy;
  /** The least an instance of each older template needs to take the target one (a template absent here needs REPLACE). */
  readonly needed: ReadonlyMap<string, UpdateAction>;
}

/** Effect is one change to the instances the updater asks for. */
export type Effect =
  | { readonly kind: 'create'; readonly instance: string; readonly template: string }
  | { readonly kind: 'status'; readonly instance: string; readonly status: InstanceStatus }
  | { readonly kind: 'retemplate'; readonly instance: string; readonly template: string }
  | { readonly kind: 'remove'; readonly instance: string };

/** Rollout is the members after the updater ran up to a time, the effects to carry out in order, and when it next has work. */
export interface Rollout {
  readonly members: readonly ManagedMember[];
  readonly effects: readonly Effect[];
  readonly nextDue: number | undefined;
}

/** NewMember makes a member CREATING from `template` (its name and id are the caller's); `index` is its place among the members. */
export type NewMember = (template: string, index: number) => ManagedMember;

/**
 * chooseAction is what the updater does to an instance: what its change needs, at least
 * `minimal`; undefined when that is more disruptive than `mostDisruptive` allows (the instance is
 * left as it is).
 */
export function chooseAction(need: UpdateAction, minimal: UpdateAction, mostDisruptive: UpdateAction): UpdateAction | undefined {
  const action = DISRUPTION[need] >= DISRUPTION[minimal] ? need : minimal;
  return DISRUPTION[action] > DISRUPTION[mostDisruptive] ? undefined : action;
}

/** calculated is a FixedOrPercent's number of instances for `targetSize`: the fixed value, or the percent rounded up. */
export function calculated(value: { readonly fixed?: number; readonly percent?: number } | undefined, targetSize: number, fallback: number): number {
  if (value?.percent !== undefined) return Math.ceil((value.percent * targetSize) / 100);
  return value?.fixed ?? fallback;
}

/** displayedAction is a member's `currentAction` on the wire: VERIFYING once its new instance is RUNNING and being checked. */
export function displayedAction(member: ManagedMember): string {
  return member.stage === 'VERIFYING' ? 'VERIFYING' : member.action;
}

/** isUp is true when a member's instance is RUNNING and the group is not taking it down (maxUnavailable counts the others). */
function isUp(member: ManagedMember): boolean {
  return member.action === 'NONE' || member.stage === 'VERIFYING' || member.stage === 'REFRESHING';
}

/** isStable is the group's `status.isStable`: no member has an action under way and the group has its target size. */
export function isStable(members: readonly ManagedMember[], targetSize: number): boolean {
  return members.length === targetSize && members.every((member) => member.action === 'NONE');
}

/** isVersionReached is `status.versionTarget.isReached`: every instance runs the target template and none is still being updated to it. */
export function isVersionReached(members: readonly ManagedMember[], template: string): boolean {
  return members.every((member) => member.template === template && (member.action === 'NONE' || member.action === 'CREATING'));
}

/** MAX_EVENTS bounds one catch-up: far more than any group's stages, so a bug cannot spin forever. */
const MAX_EVENTS = 100_000;

/**
 * advance runs the updater from the members' last state up to `now`: each stage that ended by
 * then ends at its own due time (in order), and after each the updater plans the next wave at that
 * time; then it plans at `now` (and ends what that started, if it takes no time). What it returns
 * is the state at `now`.
 */
export function advance(members: readonly ManagedMember[], desired: Desired, now: number, timing: Timing, newMember: NewMember): Rollout {
  const run = new Run([...members], desired, timing, newMember);
  run.drain(now);
  run.plan(now);
  // What the plan started may end at once (instant timing), and start the next wave.
  run.drain(now);
  const dues = run.members.flatMap((member) => (member.due === undefined ? [] : [member.due]));
  return { members: run.members, effects: run.effects, nextDue: dues.length === 0 ? undefined : Math.min(...dues) };
}

class Run {
  readonly effects: Effect[] = [];

  constructor(
    public members: ManagedMember[],
    private readonly desired: Desired,
    private readonly timing: Timing,
    private readonly newMember: NewMember,
  ) {}

  /** drain ends, in order, every stage due by `now`, planning after each at its time. */
  drain(now: number): void {
    for (let events = 0; events < MAX_EVENTS; events++) {
      const next = this.earliest();
      if (next === undefined || this.members[next]!.due! > now) return;
      const at = this.members[next]!.due!;
      this.finishStage(next, at);
      this.plan(at);
    }
  }

  /** earliest is the index of the member whose stage ends first. */
  earliest(): number | undefined {
    let best: number | undefined;
    for (const [i, member] of this.members.entries()) {
      if (member.due !== undefined && (best === undefined || member.due < this.members[best]!.due!)) best = i;
    }
    return best;
  }

  /** finishStage ends member `i`'s stage at `at`: the next stage of its action starts, or the action is done. */
  finishStage(i: number, at: number): void {
    const member = this.members[i]!;
    const { instance } = member;
    switch (member.stage) {
      case 'STOPPING':
        if (member.action === 'DELETING') {
          this.effects.push({ kind: 'remove', instance });
          this.members.splice(i, 1);
        } else if (member.action === 'RESTARTING') {
          this.effects.push({ kind: 'retemplate', instance, template: member.template }, { kind: 'status', instance, status: 'STAGING' });
          this.#set(i, 'STAGING', at + this.timing.staging);
        } else {
          this.effects.push({ kind: 'remove', instance }, { kind: 'create', instance, template: member.template });
          this.#set(i, 'PROVISIONING', at + this.timing.provisioning);
        }
        return;
      case 'PROVISIONING':
        this.effects.push({ kind: 'status', instance, status: 'STAGING' });
        this.#set(i, 'STAGING', at + this.timing.staging);
        return;
      case 'STAGING':
        this.effects.push({ kind: 'status', instance, status: 'RUNNING' });
        this.#set(i, 'VERIFYING', at + this.timing.verifying);
        return;
      case 'REFRESHING':
        this.effects.push({ kind: 'retemplate', instance, template: member.template });
        this.#done(i);
        return;
      case 'VERIFYING':
      case undefined:
        this.#done(i);
        return;
    }
  }

  /**
   * plan starts, at `at`, what the group needs now: the actions marked but not yet started
   * (deleteInstances, recreateInstances), then for a PROACTIVE policy the next wave of updates
   * of instances on an older template — surge instances first, as many out-of-date ones taken
   * down as keeps maxUnavailable, surge again for those — then instances made or deleted to
   * reach the target size.
   */
  plan(at: number): void {
    for (const [i, member] of this.members.entries()) if (member.action !== 'NONE' && member.stage === undefined) this.#begin(i, member.action, at);
    const { targetSize, template, policy } = this.desired;
    const live = () => this.members.filter((member) => member.action !== 'DELETING').length;
    const idleOutdated = () => [...this.members.entries()].filter(([, member]) => member.action === 'NONE' && member.template !== template);
    const substitutes: number[] = [];
    const inPlace: [number, 'RECREATING' | 'RESTARTING'][] = [];
    if (policy.type === 'PROACTIVE') {
      for (const [i, member] of idleOutdated()) {
        const action = this.#updateAction(member);
        if (action === undefined) continue;
        if (action === 'REFRESH') {
          this.members[i] = { ...member, action: 'REFRESHING', template };
          this.#begin(i, 'REFRESHING', at);
        } else if (action === 'RESTART') inPlace.push([i, 'RESTARTING']);
        else if (policy.replacementMethod === 'RECREATE') inPlace.push([i, 'RECREATING']);
        else substitutes.push(i);
      }
    }
    let waiting = substitutes.length;
    const surge = () => {
      while (waiting > 0 && live() < targetSize + policy.maxSurge && live() - targetSize < waiting) this.#add(at);
    };
    surge();
    let up = this.members.filter(isUp).length;
    const floor = targetSize - policy.maxUnavailable;
    for (const i of substitutes) {
      if (up <= floor) break;
      this.members[i] = { ...this.members[i]!, action: 'DELETING' };
      this.#begin(i, 'DELETING', at);
      waiting -= 1;
      up -= 1;
    }
    for (const [i, action] of inPlace) {
      if (up <= floor) break;
      this.members[i] = { ...this.members[i]!, action, template };
      this.#begin(i, action, at);
      up -= 1;
    }
    surge();
    while (live() < targetSize) this.#add(at);
    let extra = live() - targetSize - Math.min(policy.maxSurge, waiting);
    if (extra > 0) {
      // A smaller target: instances not yet up go first, then those on an older template, then the newest.
      const rank = (member: ManagedMember) => (!isUp(member) ? 0 : member.template !== template ? 1 : 2);
      const order = [...this.members.entries()].filter(([, member]) => member.action !== 'DELETING').sort(([a, x], [b, y]) => rank(x) - rank(y) || b - a);
      for (const [i] of order) {
        if (extra-- <= 0) break;
        this.members[i] = { ...this.members[i]!, action: 'DELETING' };
        this.#begin(i, 'DELETING', at);
      }
    }
  }

  /** updateAction is how an out-of-date member is updated (a template change takes at least a refresh); undefined when that is more than allowed. */
  #updateAction(member: ManagedMember): UpdateAction | undefined {
    const { policy, needed } = this.desired;
    const action = chooseAction(needed.get(member.template) ?? 'REPLACE', policy.minimalAction, policy.mostDisruptiveAllowedAction);
    return action === 'NONE' ? 'REFRESH' : action;
  }

  /** add makes a new member from the target template, its instance PROVISIONING. */
  #add(at: number): void {
    const member = this.newMember(this.desired.template, this.members.length);
    this.members.push(member);
    this.#begin(this.members.length - 1, 'CREATING', at);
  }

  /** begin starts member `i`'s action at `at`: its first stage and what the instance shows. */
  #begin(i: number, action: ManagedAction, at: number): void {
    const member = this.members[i]!;
    const { instance } = member;
    if (action === 'CREATING') {
      this.effects.push({ kind: 'create', instance, template: member.template });
      this.#set(i, 'PROVISIONING', at + this.timing.provisioning);
    } else if (action === 'REFRESHING') this.#set(i, 'REFRESHING', at + this.timing.refreshing);
    else if (action !== 'NONE') {
      this.effects.push({ kind: 'status', instance, status: 'STOPPING' });
      this.#set(i, 'STOPPING', at + this.timing.stopping);
    }
  }

  #set(i: number, stage: MemberStage, due: number): void {
    this.members[i] = { ...this.members[i]!, stage, due };
  }

  #done(i: number): void {
    const { stage: _stage, due: _due, ...rest } = this.members[i]!;
    this.members[i] = { ...rest, action: 'NONE' };
  }
}
