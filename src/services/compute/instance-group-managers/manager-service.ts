import type { Principal } from '../../../core/auth.ts';
import type { Clock, Timers } from '../../../lib/clock.ts';
import { uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { ReadView, Store, Transaction } from '../../../store/store.ts';
import { INSTANCE_TEMPLATES_KIND, type StoredTemplate } from '../instance-templates/index.ts';
import type { InstanceService } from '../instances/index.ts';
import { INSTANCES_KIND, type StoredInstance } from '../instances/index.ts';
import { BackgroundWork } from '../operations/background-work.ts';
import type { OperationService, StoredOperation } from '../operations/index.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { alreadyExists, badRequest, invalidFieldValue, notFound, requiredField } from '../shared/errors.ts';
import { newFingerprint } from '../shared/fingerprint.ts';
import { INSTANCE_TEMPLATE_USAGE, type Usages } from '../shared/in-use.ts';
import { resourcePathOf } from '../shared/links.ts';
import type { PagedSource } from '../shared/list-query.ts';
import type { Scope } from '../shared/locations.ts';
import { checkResourceName } from '../shared/names.ts';
import {
  defaultUpdatePolicy,
  type ManagedAction,
  type ManagedMember,
  MANAGERS_KIND,
  managerKey,
  managerPath,
  type ManagerVersion,
  type StoredManager,
  groupZones,
  zoneCount,
} from './manager.ts';
import { advance, calculated, chooseAction, type Desired, type RolloutPolicy, type Timing, type UpdateAction } from './rollout.ts';
import { neededAction } from './needed-action.ts';
import { ApplyUpdatesSchema, InstancesListSchema, ManagerSchema, type ManagerInput, SetTemplateSchema } from './schema.ts';

/** ManagerRef names one group. */
export interface ManagerRef {
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

/** MemberMethod is a method on some of a group's instances. */
export type MemberMethod = 'deleteInstances' | 'recreateInstances' | 'abandonInstances';

const ACTIONS = { reconcile: 'instanceGroupManagers.reconcile', delete: 'instanceGroupManagers.delete' } as const;
const TEMPLATE_PATH = /^projects\/([^/]+)\/(global|regions\/[^/]+)\/instanceTemplates\/([^/]+)$/;
const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The state a group's update reached, and when the updater next has work. */
interface Settled {
  readonly group: StoredManager;
  readonly nextDue: number | undefined;
}

/**
 * ManagerService implements managed instance groups, zonal and regional. A request changes what
 * the group is to be (its target size, its template versions, its update policy) and the
 * updater (rollout.ts) works towards it on the clock: instances are created PROVISIONING and come
 * up through STAGING to RUNNING, deleted through STOPPING, and a PROACTIVE update replaces (by
 * substitution, or under the same names with RECREATE), restarts or refreshes out-of-date ones in
 * waves bounded by maxSurge and maxUnavailable. Each change is written with the request, the
 * updater's next step runs when its time comes (a timer on the clock, or any read after it), and
 * the request's Operation finishes as the real one does, with the group's update still under
 * way; with instant Operations every step takes no time. A template a group uses cannot be
 * deleted (`Usages`).
 */
export class ManagerService {
  readonly #background = new BackgroundWork();
  /** When each group's next wake-up is set for, by key. */
  readonly #scheduled = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly operations: OperationService,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly ids: IdSource,
    private readonly instances: InstanceService,
    usages: Usages,
    private readonly timing: Timing,
  ) {
    usages.register(INSTANCE_TEMPLATE_USAGE, async (view, project, path) => {
      const groups = await view.list<StoredManager>(MANAGERS_KIND, { prefix: `${project}/` });
      const user = groups.find((r) => r.value.instanceTemplate === path || r.value.versions.some((v) => v.instanceTemplate === path));
      return user === undefined ? undefined : managerPath(user.value.project, user.value.scope, user.value.name);
    });
    operations.register(ACTIONS.reconcile, async (tx, payload) => {
      const ref = payload as ManagerRef;
      const settled = await this.#settleIn(tx, ref);
      if (settled === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
      this.#wake(ref, settled.nextDue);
      return { targetId: settled.group.id };
    });
    operations.register(ACTIONS.delete, async (tx, payload) => {
      const ref = payload as ManagerRef;
      const removed = await tx.delete<StoredManager>(MANAGERS_KIND, managerKey(ref.project, ref.scope, ref.name));
      if (removed === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
      for (const member of removed.value.members) await this.instances.removeManaged(tx, member.instance);
    });
  }

  /** open resumes the updates a previous run left under way. */
  async open(): Promise<void> {
    for (const { value } of await this.store.list<StoredManager>(MANAGERS_KIND)) {
      const due = value.members.some((member) => member.action !== 'NONE') ? this.clock.now() : undefined;
      this.#wake({ project: value.project, scope: value.scope, name: value.name }, due);
    }
  }

  /** close stops the updater's timers and waits for a step under way. */
  async close(): Promise<void> {
    this.#background.close();
    await this.#background.settled();
  }

  /** insert checks the body and its template (400, 404, 409 on the request), writes the group with its instances CREATING (PROVISIONING, brought up by the updater), and starts its Operation. */
  async insert(project: string, scope: Scope, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(project, scope, requestId);
    if (earlier !== undefined) return earlier;
    const input = decodeResource<ManagerInput>(ManagerSchema, body);
    const name = checkResourceName(input.name);
    const versions = this.#versions(input, project);
    if (versions.length === 0) throw requiredField('resource.instanceTemplate');
    await this.#readTemplate(this.store, versions[0]!.instanceTemplate);
    // Without one, the group's name is the base of its instances' names (gcloud sends none).
    const baseInstanceName = input.baseInstanceName === undefined || input.baseInstanceName === '' ? name.slice(0, 58) : input.baseInstanceName;
    if (!/^[a-z](?:[-a-z0-9]{0,57})$/.test(baseInstanceName))
      throw invalidFieldValue(
        'resource.baseInstanceName',
        baseInstanceName,
        "Must be a match of regex '[a-z](([-a-z0-9]{0,57})|([-a-z0-9]{0,51}-#{1,10}(\\[[0-9]{1,10}\\])?))'",
      );
    const targetSize = input.targetSize ?? 0;
    checkTargetSize('resource.targetSize', targetSize, scope);
    const group: StoredManager = {
      id: uint64Id(this.ids),
      name,
      project,
      scope,
      creationTime: this.clock.now(),
      description: input.description ?? '',
      baseInstanceName,
      targetSize,
      instanceTemplate: versions[0]!.instanceTemplate,
      versions,
      updatePolicy: checkedPolicy({ ...defaultUpdatePolicy(scope), ...(input.updatePolicy ?? {}) }, input.updatePolicy),
      fingerprint: newFingerprint(this.ids),
      members: [],
      instanceGroupId: uint64Id(this.ids),
    };
    const key = managerKey(project, scope, name);
    const created = await this.store.transact(async (tx) => {
      if ((await tx.get(MANAGERS_KIND, key)) !== undefined) return undefined;
      const settled = await this.#advanced(tx, group);
      await tx.put(MANAGERS_KIND, key, settled.group, { expectRevision: 0 });
      return settled;
    });
    if (created !== undefined) this.#wake({ project, scope, name }, created.nextDue);
    else {
      const twin = await this.operations.byRequestId(project, scope, requestId);
      if (twin !== undefined) return twin;
      throw alreadyExists(managerPath(project, scope, name));
    }
    return this.#reconcile({ project, scope, name }, group.id, 'compute.instanceGroupManagers.insert', principal, requestId);
  }

  /** get reads one group (its update brought up to now) or throws the real 404. */
  async get(ref: ManagerRef): Promise<StoredManager> {
    const record = await this.store.get<StoredManager>(MANAGERS_KIND, managerKey(ref.project, ref.scope, ref.name));
    if (record === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
    const now = this.clock.now();
    if (!record.value.members.some((member) => member.due !== undefined && member.due <= now)) return record.value;
    const settled = await this.store.transact((tx) => this.#settleIn(tx, ref));
    if (settled === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
    this.#wake(ref, settled.nextDue);
    return settled.group;
  }

  /** source reads one scope's groups, or every scope's, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<StoredManager> {
    const prefix = scope === undefined ? `${project}/` : managerKey(project, scope, '');
    return (after, limit) =>
      this.store.list<StoredManager>(MANAGERS_KIND, { prefix, ...(after === undefined ? {} : { after }), ...(limit === undefined ? {} : { limit }) });
  }

  /** managedInstances is listManagedInstances: each member, what the group does to it, and its instance's status. */
  async managedInstances(ref: ManagerRef): Promise<{ readonly member: ManagedMember; readonly status: string | undefined }[]> {
    const group = await this.get(ref);
    return Promise.all(
      group.members.map(async (member) => {
        const { zone, name } = memberName(member.instance);
        const record = await this.store.get<StoredInstance>(INSTANCES_KIND, `${group.project}/zones/${zone}/${name}`);
        return { member, status: record?.value.status };
      }),
    );
  }

  /** resize sets the target size: new instances CREATING, or the newest ones DELETING. */
  resize(ref: ManagerRef, size: number, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    checkTargetSize('size', size, ref.scope);
    return this.#change(ref, 'compute.instanceGroupManagers.resize', principal, requestId, (group) => ({ ...group, targetSize: size }));
  }

  /** setInstanceTemplate sets the template new instances get; the existing ones keep theirs until updated. */
  async setInstanceTemplate(ref: ManagerRef, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const input = decodeResource<{ instanceTemplate?: string }>(SetTemplateSchema, body, 'instanceGroupManagersSetInstanceTemplateRequestResource');
    if (input.instanceTemplate === undefined || input.instanceTemplate === '') throw requiredField('instanceTemplate');
    const template = this.#templatePath(input.instanceTemplate, ref.project, 'instanceTemplate');
    await this.#readTemplate(this.store, template);
    return this.#change(ref, 'compute.instanceGroupManagers.setInstanceTemplate', principal, requestId, (group) => ({
      ...group,
      instanceTemplate: template,
      versions: [{ instanceTemplate: template }],
    }));
  }

  /** patch merges `versions`, `updatePolicy`, `targetSize` and `instanceTemplate`; with a PROACTIVE policy the updater then brings every instance to the new template, in waves. */
  async patch(ref: ManagerRef, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const input = decodeResource<ManagerInput>(ManagerSchema, body);
    if (input.name !== undefined && input.name !== ref.name) throw invalidFieldValue('resource.name', input.name, 'Name cannot be changed.');
    const versions = input.versions !== undefined || input.instanceTemplate !== undefined ? this.#versions(input, ref.project) : undefined;
    for (const version of versions ?? []) await this.#readTemplate(this.store, version.instanceTemplate);
    if (input.targetSize !== undefined) checkTargetSize('resource.targetSize', input.targetSize, ref.scope);
    return this.#change(ref, 'compute.instanceGroupManagers.patch', principal, requestId, (current) => ({
      ...current,
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(versions === undefined || versions.length === 0 ? {} : { versions, instanceTemplate: versions[0]!.instanceTemplate }),
      ...(input.targetSize === undefined ? {} : { targetSize: input.targetSize }),
      updatePolicy: checkedPolicy({ ...current.updatePolicy, ...(input.updatePolicy ?? {}) }, input.updatePolicy),
    }));
  }

  /** members applies deleteInstances (DELETING, the target shrinks), recreateInstances (RECREATING) or abandonInstances (out of the group, the instance kept). */
  async members(ref: ManagerRef, method: MemberMethod, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const field = `instanceGroupManagers${method[0]!.toUpperCase()}${method.slice(1)}RequestResource`;
    const input = decodeResource<{ instances?: string[] }>(InstancesListSchema, body, field);
    const paths = instancePaths(input.instances ?? [], ref.project);
    if (paths.length === 0) throw requiredField('instances');
    return this.#change(ref, `compute.instanceGroupManagers.${method}`, principal, requestId, (group) => {
      requireMembers(group, paths);
      const named = (member: ManagedMember) => paths.includes(member.instance);
      if (method === 'abandonInstances') {
        const members = group.members.filter((member) => !named(member));
        return { ...group, members, targetSize: group.targetSize - (group.members.length - members.length) };
      }
      const action: ManagedAction = method === 'deleteInstances' ? 'DELETING' : 'RECREATING';
      // The named ones start over with their new action: whatever they were doing is dropped.
      const members = group.members.map((member): ManagedMember => {
        if (!named(member)) return member;
        const { stage: _stage, due: _due, ...rest } = member;
        return { ...rest, action, ...(action === 'RECREATING' ? { template: group.instanceTemplate } : {}) };
      });
      return { ...group, members, targetSize: method === 'deleteInstances' ? group.targetSize - paths.length : group.targetSize };
    });
  }

  /**
   * applyUpdates is applyUpdatesToInstances: the named instances (or all) are brought to the
   * group's template now, whatever the update policy's type and budget: each takes what its change
   * needs, at least `minimalAction` (default NONE), and is left alone when that is more than
   * `mostDisruptiveAllowedAction` (default REPLACE) allows; a replacement keeps the instance's name.
   */
  async applyUpdates(ref: ManagerRef, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const input = decodeResource<{ instances?: string[]; allInstances?: boolean; minimalAction?: UpdateAction; mostDisruptiveAllowedAction?: UpdateAction }>(
      ApplyUpdatesSchema,
      body,
      'instanceGroupManagersApplyUpdatesRequestResource',
    );
    const paths = instancePaths(input.instances ?? [], ref.project);
    if (paths.length === 0 && input.allInstances !== true) throw requiredField('instances');
    const current = await this.get(ref);
    const target = await this.#readTemplate(this.store, current.instanceTemplate);
    const needed = new Map<string, UpdateAction>([[current.instanceTemplate, 'NONE']]);
    for (const member of current.members) {
      if (needed.has(member.template)) continue;
      const older = await this.#findTemplate(this.store, member.template);
      needed.set(member.template, older === undefined ? 'REPLACE' : neededAction(older.properties, target.properties));
    }
    const minimal = input.minimalAction ?? 'NONE';
    const most = input.mostDisruptiveAllowedAction ?? 'REPLACE';
    return this.#change(ref, 'compute.instanceGroupManagers.applyUpdatesToInstances', principal, requestId, (group) => {
      requireMembers(group, paths);
      const members = group.members.map((member): ManagedMember => {
        if (member.action !== 'NONE' || (input.allInstances !== true && !paths.includes(member.instance))) return member;
        const action = chooseAction(needed.get(member.template) ?? 'REPLACE', minimal, most);
        if (action === undefined || action === 'NONE') return member;
        const marked: ManagedAction = action === 'REFRESH' ? 'REFRESHING' : action === 'RESTART' ? 'RESTARTING' : 'RECREATING';
        return { ...member, action: marked, template: group.instanceTemplate };
      });
      return { ...group, members };
    });
  }

  /** delete starts the Operation that deletes the group and its instances. */
  async delete(ref: ManagerRef, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const group = await this.get(ref);
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: 'compute.instanceGroupManagers.delete',
      targetPath: managerPath(ref.project, ref.scope, ref.name),
      targetId: group.id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.delete, payload: { project: ref.project, scope: ref.scope, name: ref.name } satisfies ManagerRef },
    });
  }

  /** change writes `next(group)` on the request and starts the Operation that carries it out. */
  async #change(
    ref: ManagerRef,
    operationType: string,
    principal: Principal,
    requestId: string | undefined,
    next: (group: StoredManager) => StoredManager,
  ): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const key = managerKey(ref.project, ref.scope, ref.name);
    const settled = await this.store.transact(async (tx) => {
      const record = await tx.get<StoredManager>(MANAGERS_KIND, key);
      if (record === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
      // What was due by now happens first, under the group as it was.
      const before = await this.#advanced(tx, record.value);
      const after = await this.#advanced(tx, { ...next(before.group), fingerprint: newFingerprint(this.ids) });
      await tx.put(MANAGERS_KIND, key, after.group, { expectRevision: record.revision });
      return after;
    });
    this.#wake(ref, settled.nextDue);
    return this.#reconcile(ref, settled.group.id, operationType, principal, requestId);
  }

  /** settleIn brings a group's update up to now inside `tx`; undefined when the group is gone. */
  async #settleIn(tx: Transaction, ref: ManagerRef): Promise<Settled | undefined> {
    const record = await tx.get<StoredManager>(MANAGERS_KIND, managerKey(ref.project, ref.scope, ref.name));
    if (record === undefined) return undefined;
    const settled = await this.#advanced(tx, record.value);
    if (settled.group !== record.value) await tx.put(MANAGERS_KIND, record.key, settled.group, { expectRevision: record.revision });
    return settled;
  }

  /** advanced runs the updater (rollout.ts) on `group` up to now and carries out what it did to the instances, inside `tx`. */
  async #advanced(tx: Transaction, group: StoredManager): Promise<Settled> {
    const templates = new Map<string, StoredTemplate | undefined>();
    const template = async (path: string) => {
      if (!templates.has(path)) templates.set(path, await this.#findTemplate(tx, path));
      return templates.get(path);
    };
    const target = await template(group.instanceTemplate);
    const needed = new Map<string, UpdateAction>();
    for (const member of group.members) {
      if (member.template === group.instanceTemplate || needed.has(member.template)) continue;
      const older = await template(member.template);
      needed.set(member.template, older === undefined || target === undefined ? 'REPLACE' : neededAction(older.properties, target.properties));
    }
    const desired: Desired = { targetSize: group.targetSize, template: group.instanceTemplate, policy: rolloutPolicy(group), needed };
    const rollout = advance(group.members, desired, this.clock.now(), this.timing, (path, index) => this.#newMember(group, path, index));
    const groupPath = managerPath(group.project, group.scope, group.name);
    for (const effect of rollout.effects) {
      if (effect.kind === 'create') {
        const made = await template(effect.template);
        if (made === undefined) throw notFound(effect.template);
        const { zone, name } = memberName(effect.instance);
        await this.instances.createManaged(tx, group.project, zone, name, effect.template, made, groupPath);
      } else if (effect.kind === 'status') await this.instances.setManagedStatus(tx, effect.instance, effect.status);
      else if (effect.kind === 'remove') await this.instances.removeManaged(tx, effect.instance);
      else {
        const made = await template(effect.template);
        if (made !== undefined) await this.instances.retemplateManaged(tx, effect.instance, effect.template, made);
      }
    }
    const unchanged =
      rollout.effects.length === 0 && rollout.members.length === group.members.length && rollout.members.every((m, i) => m === group.members[i]);
    return { group: unchanged ? group : { ...group, members: rollout.members }, nextDue: rollout.nextDue };
  }

  /** wake runs the group's updater again at `due` on the clock (a timer), unless one is set for then or sooner. */
  #wake(ref: ManagerRef, due: number | undefined): void {
    if (due === undefined || this.#background.closed) return;
    const key = managerKey(ref.project, ref.scope, ref.name);
    const set = this.#scheduled.get(key);
    if (set !== undefined && set <= due) return;
    this.#scheduled.set(key, due);
    const step = async () => {
      await Promise.race([this.timers.delay(Math.max(0, due - this.clock.now())), this.#background.closedSignal]);
      if (this.#scheduled.get(key) === due) this.#scheduled.delete(key);
      if (this.#background.closed) return;
      const settled = await this.store.transact((tx) => this.#settleIn(tx, ref));
      this.#wake(ref, settled?.nextDue);
    };
    this.#background.track(step());
  }

  #reconcile(ref: ManagerRef, id: string, operationType: string, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType,
      targetPath: managerPath(ref.project, ref.scope, ref.name),
      targetId: id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.reconcile, payload: { project: ref.project, scope: ref.scope, name: ref.name } satisfies ManagerRef },
    });
  }

  /** newMember is a member CREATING from `template`, named from the group's base name; a regional group's spread over its zones by `index`. */
  #newMember(group: StoredManager, template: string, index: number): ManagedMember {
    const zones = groupZones(group.scope);
    const zone = zones[index % zones.length]!;
    const suffix = [...this.ids.bytes(4)].map((byte) => SUFFIX_ALPHABET[byte % SUFFIX_ALPHABET.length]).join('');
    return {
      id: uint64Id(this.ids),
      instance: `projects/${group.project}/zones/${zone}/instances/${group.baseInstanceName}-${suffix}`,
      template,
      action: 'CREATING',
    };
  }

  #versions(input: ManagerInput, project: string): ManagerVersion[] {
    if (input.versions !== undefined && input.versions.length > 0) {
      return input.versions.map((version, i) => {
        if (version.instanceTemplate === undefined || version.instanceTemplate === '') throw requiredField(`resource.versions[${i}].instanceTemplate`);
        return {
          instanceTemplate: this.#templatePath(version.instanceTemplate, project, `resource.versions[${i}].instanceTemplate`),
          ...(version.name === undefined ? {} : { name: version.name }),
          ...(version.targetSize === undefined ? {} : { targetSize: version.targetSize }),
        };
      });
    }
    if (input.instanceTemplate === undefined || input.instanceTemplate === '') return [];
    return [{ instanceTemplate: this.#templatePath(input.instanceTemplate, project, 'resource.instanceTemplate') }];
  }

  #templatePath(text: string, project: string, field: string): string {
    const path = resourcePathOf(text, project);
    if (path === undefined || !TEMPLATE_PATH.test(path)) throw invalidFieldValue(field, text, 'The URL is malformed.');
    return path;
  }

  /** findTemplate reads a template by its path; undefined when it is gone. */
  async #findTemplate(view: ReadView | Transaction, path: string): Promise<StoredTemplate | undefined> {
    const match = TEMPLATE_PATH.exec(path);
    if (match === null) return undefined;
    return (await view.get<StoredTemplate>(INSTANCE_TEMPLATES_KIND, `${match[1]}/${match[2]}/${match[3]}`))?.value;
  }

  /** readTemplate reads a template by its path, or throws the real 404. */
  async #readTemplate(view: ReadView | Transaction, path: string): Promise<StoredTemplate> {
    const [, project, scope, name] = TEMPLATE_PATH.exec(path) as unknown as [string, string, string, string];
    const record = await view.get<StoredTemplate>(INSTANCE_TEMPLATES_KIND, `${project}/${scope}/${name}`);
    if (record === undefined) throw notFound(path);
    return record.value;
  }
}

/** memberName reads a member's zone and instance name from its path. */
function memberName(path: string): { readonly zone: string; readonly name: string } {
  const [, , , zone = '', , name = ''] = path.split('/');
  return { zone, name };
}

/** rolloutPolicy is a group's update policy as the updater reads it: defaults filled, maxSurge and maxUnavailable as numbers of instances. */
function rolloutPolicy(group: StoredManager): RolloutPolicy {
  const policy = group.updatePolicy as {
    type?: RolloutPolicy['type'];
    minimalAction?: UpdateAction;
    mostDisruptiveAllowedAction?: UpdateAction;
    replacementMethod?: RolloutPolicy['replacementMethod'];
    maxSurge?: { fixed?: number; percent?: number };
    maxUnavailable?: { fixed?: number; percent?: number };
  };
  const zones = zoneCount(group.scope);
  return {
    type: policy.type ?? 'OPPORTUNISTIC',
    minimalAction: policy.minimalAction ?? 'REPLACE',
    mostDisruptiveAllowedAction: policy.mostDisruptiveAllowedAction ?? 'REPLACE',
    replacementMethod: policy.replacementMethod ?? 'SUBSTITUTE',
    maxSurge: calculated(policy.maxSurge, group.targetSize, zones),
    maxUnavailable: calculated(policy.maxUnavailable, group.targetSize, zones),
  };
}

/** shownFixedOrPercent is a FixedOrPercent as the service quotes it in an error: `{  "percent": 20}`. */
function shownFixedOrPercent(value: Readonly<Record<string, unknown>>): string {
  return `{  ${Object.entries(value)
    .map(([key, field]) => `${JSON.stringify(key)}: ${JSON.stringify(field)}`)
    .join(',  ')}}`;
}

/**
 * checkedPolicy is `merged` (the policy a group is to have) once checked: a RECREATE replacement
 * admits no surge (when the request sets one), and maxSurge and maxUnavailable cannot both be 0.
 */
function checkedPolicy(merged: Readonly<Record<string, unknown>>, given: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> {
  const surge = merged['maxSurge'] as { fixed?: number; percent?: number } | undefined;
  const unavailable = merged['maxUnavailable'] as { fixed?: number; percent?: number } | undefined;
  const amount = (value: { fixed?: number; percent?: number } | undefined) => value?.fixed ?? value?.percent ?? 0;
  if (given?.['maxSurge'] !== undefined && merged['replacementMethod'] === 'RECREATE' && amount(surge) > 0) {
    throw invalidFieldValue(
      'resource.updatePolicy.maxSurge',
      shownFixedOrPercent(given['maxSurge'] as Record<string, unknown>),
      'maxSurge must be equal to 0 when replacement method is set to RECREATE',
    );
  }
  if ((given?.['maxSurge'] !== undefined || given?.['maxUnavailable'] !== undefined) && amount(surge) === 0 && amount(unavailable) === 0) {
    throw invalidFieldValue(
      'resource.updatePolicy.maxUnavailable',
      shownFixedOrPercent((unavailable ?? {}) as Record<string, unknown>),
      'At least one of maxSurge or maxUnavailable must be greater than 0.',
    );
  }
  return merged;
}

/** instancePaths reads a request's instance URLs as paths (400 for one that is not an instance's). */
function instancePaths(texts: readonly string[], project: string): string[] {
  return texts.map((text, i) => {
    const path = resourcePathOf(text, project);
    if (path === undefined || !/^projects\/[^/]+\/zones\/[^/]+\/instances\/[^/]+$/.test(path))
      throw invalidFieldValue(`instances[${i}]`, text, 'The URL is malformed.');
    return path;
  });
}

/** requireMembers throws the 400 for the first of `paths` that is not one of the group's instances. */
function requireMembers(group: StoredManager, paths: readonly string[]): void {
  for (const path of paths) {
    if (!group.members.some((member) => member.instance === path))
      throw badRequest(`The instance '${path}' is not a member of the instance group manager '${managerPath(group.project, group.scope, group.name)}'.`);
  }
}

/** MAX_TARGET_SIZE is the most instances a group may have: a zonal group 1,000, a regional one 2,000 (Compute Engine's documented limits). */
const MAX_TARGET_SIZE = { zone: 1_000, region: 2_000 } as const;

/**
 * checkTargetSize refuses a negative target size (the real message) and one past the group's
 * limit (fogbank's words: the real text is not known).
 */
function checkTargetSize(field: string, size: number, scope: Scope): void {
  if (!Number.isInteger(size) || size < 0) throw invalidFieldValue(field, String(size), 'Target size must be non-negative.');
  const limit = scope.kind === 'region' ? MAX_TARGET_SIZE.region : MAX_TARGET_SIZE.zone;
  if (size > limit) throw invalidFieldValue(field, String(size), `Target size must be at most ${limit}.`);
}
