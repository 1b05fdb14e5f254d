import type { Principal } from '../../../core/auth.ts';
import type { Clock } from '../../../lib/clock.ts';
import { uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { ReadView, Store, Transaction } from '../../../store/store.ts';
import { INSTANCE_TEMPLATES_KIND, type StoredTemplate } from '../instance-templates/index.ts';
import type { InstanceService } from '../instances/index.ts';
import { INSTANCES_KIND, type StoredInstance } from '../instances/index.ts';
import type { OperationService, StoredOperation } from '../operations/index.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { alreadyExists, badRequest, invalidFieldValue, notFound, requiredField } from '../shared/errors.ts';
import { newFingerprint } from '../shared/fingerprint.ts';
import { INSTANCE_TEMPLATE_USAGE, type Usages } from '../shared/in-use.ts';
import { resourcePathOf } from '../shared/links.ts';
import type { PagedSource } from '../shared/list-query.ts';
import { REGIONS, type Scope } from '../shared/locations.ts';
import { checkResourceName } from '../shared/names.ts';
import {
  DEFAULT_UPDATE_POLICY,
  type ManagedAction,
  type ManagedMember,
  MANAGERS_KIND,
  managerKey,
  managerPath,
  type ManagerVersion,
  type StoredManager,
} from './manager.ts';
import { InstancesListSchema, ManagerSchema, type ManagerInput, SetTemplateSchema } from './schema.ts';

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

/**
 * ManagerService implements managed instance groups, zonal and regional. Every method changes the
 * group's record on the request, marking what it will do to each instance (`currentAction`
 * CREATING, DELETING, RECREATING), and its Operation does it — creating, deleting or replacing
 * the instances from the group's template — and marks them NONE. A rolling update (a patch with
 * new `versions` and a PROACTIVE `updatePolicy`, gcloud's `rolling-action start-update`)
 * replaces every instance of an older template when its Operation runs: by substitution (new
 * names) or, with `replacementMethod: RECREATE`, under the same names. A template a group uses
 * cannot be deleted (`Usages`).
 */
export class ManagerService {
  constructor(
    private readonly store: Store,
    private readonly operations: OperationService,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    private readonly instances: InstanceService,
    usages: Usages,
  ) {
    usages.register(INSTANCE_TEMPLATE_USAGE, async (view, project, path) => {
      const groups = await view.list<StoredManager>(MANAGERS_KIND, { prefix: `${project}/` });
      const user = groups.find((r) => r.value.instanceTemplate === path || r.value.versions.some((v) => v.instanceTemplate === path));
      return user === undefined ? undefined : managerPath(user.value.project, user.value.scope, user.value.name);
    });
    operations.register(ACTIONS.reconcile, async (tx, payload) => {
      const ref = payload as ManagerRef;
      const record = await tx.get<StoredManager>(MANAGERS_KIND, managerKey(ref.project, ref.scope, ref.name));
      if (record === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
      const group = record.value;
      const path = managerPath(group.project, group.scope, group.name);
      const members: ManagedMember[] = [];
      for (const member of group.members) {
        if (member.action === 'NONE') members.push(member);
        else if (member.action === 'DELETING') await this.instances.removeManaged(tx, member.instance);
        else {
          if (member.action === 'RECREATING') await this.instances.removeManaged(tx, member.instance);
          const { zone, name } = memberName(member.instance);
          await this.instances.createManaged(tx, group.project, zone, name, member.template, await this.#readTemplate(tx, member.template), path);
          members.push({ ...member, action: 'NONE' });
        }
      }
      await tx.put(MANAGERS_KIND, record.key, { ...group, members }, { expectRevision: record.revision });
      return { targetId: group.id };
    });
    operations.register(ACTIONS.delete, async (tx, payload) => {
      const ref = payload as ManagerRef;
      const removed = await tx.delete<StoredManager>(MANAGERS_KIND, managerKey(ref.project, ref.scope, ref.name));
      if (removed === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
      for (const member of removed.value.members) await this.instances.removeManaged(tx, member.instance);
    });
  }

  /** insert checks the body and its template (400, 404, 409 on the request), writes the group with its instances CREATING, and starts the Operation that makes them. */
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
    if (targetSize < 0) throw invalidFieldValue('resource.targetSize', String(targetSize), 'Target size must be non-negative.');
    const group: StoredManager = {
      id: uint64Id(this.ids),
      name,
      project,
      scope,
      creationTime: this.clock.now(),
      description: input.description ?? '',
      baseInstanceName,
      targetSize: 0,
      instanceTemplate: versions[0]!.instanceTemplate,
      versions,
      updatePolicy: { ...DEFAULT_UPDATE_POLICY, ...(input.updatePolicy ?? {}) },
      fingerprint: newFingerprint(this.ids),
      members: [],
    };
    const key = managerKey(project, scope, name);
    const created = await this.store.transact(async (tx) => {
      if ((await tx.get(MANAGERS_KIND, key)) !== undefined) return false;
      await tx.put(MANAGERS_KIND, key, this.#resized(group, targetSize), { expectRevision: 0 });
      return true;
    });
    if (!created) {
      const twin = await this.operations.byRequestId(project, scope, requestId);
      if (twin !== undefined) return twin;
      throw alreadyExists(managerPath(project, scope, name));
    }
    return this.#reconcile({ project, scope, name }, group.id, 'compute.instanceGroupManagers.insert', principal, requestId);
  }

  /** get reads one group or throws the real 404. */
  async get(ref: ManagerRef): Promise<StoredManager> {
    const record = await this.store.get<StoredManager>(MANAGERS_KIND, managerKey(ref.project, ref.scope, ref.name));
    if (record === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
    return record.value;
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
    if (!Number.isInteger(size) || size < 0) throw invalidFieldValue('size', String(size), 'Target size must be non-negative.');
    return this.#change(ref, 'compute.instanceGroupManagers.resize', principal, requestId, (group) => this.#resized(group, size));
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

  /** patch merges `versions`, `updatePolicy`, `targetSize` and `instanceTemplate`; a PROACTIVE policy replaces every out-of-date instance. */
  async patch(ref: ManagerRef, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const input = decodeResource<ManagerInput>(ManagerSchema, body);
    if (input.name !== undefined && input.name !== ref.name) throw invalidFieldValue('resource.name', input.name, 'Name cannot be changed.');
    const versions = input.versions !== undefined || input.instanceTemplate !== undefined ? this.#versions(input, ref.project) : undefined;
    for (const version of versions ?? []) await this.#readTemplate(this.store, version.instanceTemplate);
    return this.#change(ref, 'compute.instanceGroupManagers.patch', principal, requestId, (current) => {
      let group: StoredManager = {
        ...current,
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(versions === undefined || versions.length === 0 ? {} : { versions, instanceTemplate: versions[0]!.instanceTemplate }),
        updatePolicy: { ...current.updatePolicy, ...(input.updatePolicy ?? {}) },
      };
      if (input.targetSize !== undefined) group = this.#resized(group, input.targetSize);
      return group.updatePolicy['type'] === 'PROACTIVE' ? this.#rolled(group) : group;
    });
  }

  /** members applies deleteInstances (DELETING, the target shrinks), recreateInstances (RECREATING) or abandonInstances (out of the group, the instance kept). */
  async members(ref: ManagerRef, method: MemberMethod, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const field = `instanceGroupManagers${method[0]!.toUpperCase()}${method.slice(1)}RequestResource`;
    const input = decodeResource<{ instances?: string[] }>(InstancesListSchema, body, field);
    const paths = (input.instances ?? []).map((text, i) => {
      const path = resourcePathOf(text, ref.project);
      if (path === undefined || !/^projects\/[^/]+\/zones\/[^/]+\/instances\/[^/]+$/.test(path))
        throw invalidFieldValue(`instances[${i}]`, text, 'The URL is malformed.');
      return path;
    });
    if (paths.length === 0) throw requiredField('instances');
    return this.#change(ref, `compute.instanceGroupManagers.${method}`, principal, requestId, (group) => {
      for (const path of paths) {
        if (!group.members.some((member) => member.instance === path))
          throw badRequest(`The instance '${path}' is not a member of the instance group manager '${managerPath(group.project, group.scope, group.name)}'.`);
      }
      const named = (member: ManagedMember) => paths.includes(member.instance);
      if (method === 'abandonInstances') {
        const members = group.members.filter((member) => !named(member));
        return { ...group, members, targetSize: group.targetSize - (group.members.length - members.length) };
      }
      const action: ManagedAction = method === 'deleteInstances' ? 'DELETING' : 'RECREATING';
      const members = group.members.map((member) =>
        named(member) ? { ...member, action, ...(action === 'RECREATING' ? { template: group.instanceTemplate } : {}) } : member,
      );
      return { ...group, members, targetSize: method === 'deleteInstances' ? group.targetSize - paths.length : group.targetSize };
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
    const id = await this.store.transact(async (tx) => {
      const record = await tx.get<StoredManager>(MANAGERS_KIND, key);
      if (record === undefined) throw notFound(managerPath(ref.project, ref.scope, ref.name));
      await tx.put(MANAGERS_KIND, key, { ...next(record.value), fingerprint: newFingerprint(this.ids) }, { expectRevision: record.revision });
      return record.value.id;
    });
    return this.#reconcile(ref, id, operationType, principal, requestId);
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

  /** resized is the group at `size`: new members CREATING (spread over the region's zones for a regional group), or the newest marked DELETING. */
  #resized(group: StoredManager, size: number): StoredManager {
    const live = group.members.filter((member) => member.action !== 'DELETING');
    let members = [...group.members];
    if (size > live.length) {
      for (let i = live.length; i < size; i++) members.push(this.#newMember(group, members.length));
    } else if (size < live.length) {
      const going = new Set(live.slice(size).map((member) => member.instance));
      members = members.map((member) => (going.has(member.instance) ? { ...member, action: 'DELETING' } : member));
    }
    return { ...group, members, targetSize: size };
  }

  /** rolled replaces every member whose template is not the group's: by a new instance (SUBSTITUTE), or under its own name (RECREATE). */
  #rolled(group: StoredManager): StoredManager {
    const recreate = group.updatePolicy['replacementMethod'] === 'RECREATE';
    const members: ManagedMember[] = [];
    for (const [index, member] of group.members.entries()) {
      if (member.action === 'DELETING' || member.template === group.instanceTemplate) members.push(member);
      else if (recreate) members.push({ ...member, action: 'RECREATING', template: group.instanceTemplate });
      else members.push({ ...member, action: 'DELETING' }, this.#newMember(group, index));
    }
    return { ...group, members };
  }

  #newMember(group: StoredManager, index: number): ManagedMember {
    const { scope } = group;
    const zones =
      scope.kind === 'region' ? (REGIONS[scope.name] ?? ['a']).map((letter) => `${scope.name}-${letter}`) : scope.kind === 'zone' ? [scope.name] : [];
    const zone = zones[index % zones.length]!;
    const suffix = [...this.ids.bytes(4)].map((byte) => SUFFIX_ALPHABET[byte % SUFFIX_ALPHABET.length]).join('');
    return {
      id: uint64Id(this.ids),
      instance: `projects/${group.project}/zones/${zone}/instances/${group.baseInstanceName}-${suffix}`,
      template: group.instanceTemplate,
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
