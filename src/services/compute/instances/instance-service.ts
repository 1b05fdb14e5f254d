import type { Principal } from '../../../core/auth.ts';
import type { Clock } from '../../../lib/clock.ts';
import { uint64Id, type IdSource } from '../../../lib/ids.ts';
import type { Store, Transaction } from '../../../store/store.ts';
import { subnetRange } from '../catalog/index.ts';
import type { StoredTemplate, TemplateService } from '../instance-templates/index.ts';
import type { OperationService, StoredOperation } from '../operations/index.ts';
import { EMPTY_LABEL_FINGERPRINT } from '../security-policies/policy.ts';
import { requirePermission } from '../shared/authorize.ts';
import { alreadyExists, badRequest, invalidFieldValue, notFound } from '../shared/errors.ts';
import { newFingerprint } from '../shared/fingerprint.ts';
import { resourcePathOf } from '../shared/links.ts';
import type { PagedSource } from '../shared/list-query.ts';
import { GLOBAL, type Scope } from '../shared/locations.ts';
import { EXTERNAL_RANGE, freeAddress } from './addresses.ts';
import type { DecodedInstance } from './decode-instance.ts';
import { INSTANCES_KIND, type InstanceStatus, instanceKey, instancePath, type StoredInstance } from './instance.ts';

let loadedDecoder: Promise<typeof import('./decode-instance.ts')> | undefined;
/** decoder loads the schema and the validators with the first write, not at start-up. */
const decoder = () => (loadedDecoder ??= import('./decode-instance.ts'));

/** InstanceRef names one instance. */
export interface InstanceRef {
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

/** LifecycleMethod is a method that moves an instance through its states. */
export type LifecycleMethod = 'start' | 'stop' | 'suspend' | 'resume' | 'reset';

/**
 * LIFECYCLE says, per method, the states it may start from, the state the instance shows while
 * its Operation runs, and the state it ends in (Compute Engine's instance life cycle: start
 * STAGING → RUNNING, stop STOPPING → TERMINATED, suspend SUSPENDING → SUSPENDED, resume back to
 * RUNNING, reset stays RUNNING). A start of a running instance, or a stop of a stopped one, is
 * a no-op Operation, as on the real service.
 */
const LIFECYCLE: Readonly<
  Record<
    LifecycleMethod,
    { readonly from: readonly InstanceStatus[]; readonly during: InstanceStatus; readonly to: InstanceStatus; readonly noop: readonly InstanceStatus[] }
  >
> = {
  start: { from: ['TERMINATED', 'STOPPED'], during: 'STAGING', to: 'RUNNING', noop: ['RUNNING', 'PROVISIONING', 'STAGING'] },
  stop: { from: ['RUNNING', 'PROVISIONING', 'STAGING', 'SUSPENDED'], during: 'STOPPING', to: 'TERMINATED', noop: ['TERMINATED', 'STOPPING', 'STOPPED'] },
  suspend: { from: ['RUNNING'], during: 'SUSPENDING', to: 'SUSPENDED', noop: ['SUSPENDED', 'SUSPENDING'] },
  resume: { from: ['SUSPENDED'], during: 'STAGING', to: 'RUNNING', noop: [] },
  reset: { from: ['RUNNING'], during: 'RUNNING', to: 'RUNNING', noop: [] },
};

/** SetMethod is a method that replaces one fingerprinted part of an instance. */
export type SetMethod = 'setLabels' | 'setMetadata' | 'setTags';

interface TransitionWork {
  readonly key: string;
  readonly path: string;
  readonly to: InstanceStatus;
  readonly stamp?: 'start' | 'stop' | 'suspend';
}

interface ChangeWork {
  readonly key: string;
  readonly path: string;
  readonly method: SetMethod;
  readonly value: unknown;
}

const ACTIONS = { transition: 'instances.transition', delete: 'instances.delete', change: 'instances.change' } as const;

/**
 * InstanceService implements zonal VM instances. An insert is checked on the request (the body,
 * merged over its template when `sourceInstanceTemplate` names one; the machine type in the
 * zone; the name) and the instance written PROVISIONING with its addresses; it is STAGING while
 * its Operation runs and RUNNING once it is done. Each life-cycle method writes the state the instance shows while it runs and
 * its Operation the state it ends in, so a client polling the instance sees the transitions.
 */
export class InstanceService {
  constructor(
    private readonly store: Store,
    private readonly operations: OperationService,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    private readonly templates: TemplateService,
  ) {
    operations.register(ACTIONS.transition, async (tx, payload) => {
      const work = payload as TransitionWork;
      const record = await tx.get<StoredInstance>(INSTANCES_KIND, work.key);
      if (record === undefined) throw notFound(work.path);
      const now = this.clock.now();
      const stamps =
        work.stamp === 'start'
          ? { lastStartTime: now }
          : work.stamp === 'stop'
            ? { lastStopTime: now }
            : work.stamp === 'suspend'
              ? { lastSuspendedTime: now }
              : {};
      await tx.put(INSTANCES_KIND, work.key, { ...record.value, status: work.to, ...stamps }, { expectRevision: record.revision });
      return { targetId: record.value.id };
    });
    // A new instance is PROVISIONING while its insert is PENDING, STAGING while it runs, RUNNING once DONE.
    operations.registerStart(ACTIONS.transition, async (tx, payload) => {
      const work = payload as TransitionWork;
      const record = await tx.get<StoredInstance>(INSTANCES_KIND, work.key);
      if (record?.value.status === 'PROVISIONING')
        await tx.put(INSTANCES_KIND, work.key, { ...record.value, status: 'STAGING' }, { expectRevision: record.revision });
    });
    operations.register(ACTIONS.delete, async (tx, payload) => {
      const work = payload as TransitionWork;
      if ((await tx.delete(INSTANCES_KIND, work.key)) === undefined) throw notFound(work.path);
    });
    operations.register(ACTIONS.change, async (tx, payload) => {
      const work = payload as ChangeWork;
      const record = await tx.get<StoredInstance>(INSTANCES_KIND, work.key);
      if (record === undefined) throw notFound(work.path);
      const instance = record.value;
      const next: StoredInstance =
        work.method === 'setLabels'
          ? {
              ...instance,
              labels: work.value as Record<string, string>,
              labelFingerprint: Object.keys(work.value as object).length === 0 ? EMPTY_LABEL_FINGERPRINT : newFingerprint(this.ids),
            }
          : { ...instance, properties: { ...instance.properties, [work.method === 'setMetadata' ? 'metadata' : 'tags']: work.value } };
      await tx.put(INSTANCES_KIND, work.key, { ...next, fingerprint: newFingerprint(this.ids) }, { expectRevision: record.revision });
      return { targetId: instance.id };
    });
  }

  /** insert validates the body (and its template), writes the instance PROVISIONING and starts the Operation that brings it up. */
  async insert(
    project: string,
    zone: string,
    body: unknown,
    sourceInstanceTemplate: string | undefined,
    principal: Principal,
    requestId: string | undefined,
  ): Promise<StoredOperation> {
    const scope: Scope = { kind: 'zone', name: zone };
    const earlier = await this.operations.byRequestId(project, scope, requestId);
    if (earlier !== undefined) return earlier;
    const { decodeInstance } = await decoder();
    const template = sourceInstanceTemplate === undefined ? undefined : await this.#template(sourceInstanceTemplate, project, zone);
    const decoded = decodeInstance(
      body,
      template?.value,
      { project, zone, checkPermission: (permission, path) => requirePermission(principal, permission, path) },
      this.ids,
    );
    const path = instancePath(project, scope, decoded.name);
    const key = instanceKey(project, scope, decoded.name);
    const id = uint64Id(this.ids);
    const created = await this.store.transact(async (tx) => {
      if ((await tx.get(INSTANCES_KIND, key)) !== undefined) return false;
      const instance = await this.#materialise(tx, { project, scope, id, decoded, ...(template === undefined ? {} : { template: template.path }) });
      await tx.put(INSTANCES_KIND, key, instance, { expectRevision: 0 });
      return true;
    });
    if (!created) {
      const twin = await this.operations.byRequestId(project, scope, requestId);
      if (twin !== undefined) return twin;
      throw alreadyExists(path);
    }
    return this.operations.start({
      project,
      scope,
      operationType: 'insert',
      targetPath: path,
      targetId: id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.transition, payload: { key, path, to: 'RUNNING', stamp: 'start' } satisfies TransitionWork },
    });
  }

  /** get reads one instance or throws the real 404. */
  async get(ref: InstanceRef): Promise<StoredInstance> {
    const record = await this.store.get<StoredInstance>(INSTANCES_KIND, instanceKey(ref.project, ref.scope, ref.name));
    if (record === undefined) throw notFound(instancePath(ref.project, ref.scope, ref.name));
    return record.value;
  }

  /** source reads one zone's instances, or every zone's when `scope` is undefined, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<StoredInstance> {
    const prefix = scope === undefined ? `${project}/` : instanceKey(project, scope, '');
    return (after, limit) =>
      this.store.list<StoredInstance>(INSTANCES_KIND, {
        prefix,
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
      });
  }

  /** lifecycle checks the instance may take the method now, writes the state it shows meanwhile and starts the Operation that ends it. */
  async lifecycle(ref: InstanceRef, method: LifecycleMethod, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const rule = LIFECYCLE[method];
    const key = instanceKey(ref.project, ref.scope, ref.name);
    const path = instancePath(ref.project, ref.scope, ref.name);
    const instance = await this.store.transact(async (tx) => {
      const record = await tx.get<StoredInstance>(INSTANCES_KIND, key);
      if (record === undefined) throw notFound(path);
      if (rule.noop.includes(record.value.status)) return record.value;
      if (!rule.from.includes(record.value.status)) {
        throw badRequest(`The instance '${path}' cannot be ${PAST[method]} while it is ${record.value.status}: ${method} needs it ${rule.from.join(' or ')}.`);
      }
      await tx.put(INSTANCES_KIND, key, { ...record.value, status: rule.during }, { expectRevision: record.revision });
      return record.value;
    });
    const noop = rule.noop.includes(instance.status);
    const stamp = method === 'stop' ? 'stop' : method === 'suspend' ? 'suspend' : method === 'reset' ? undefined : 'start';
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: method,
      targetPath: path,
      targetId: instance.id,
      user: principal.email,
      requestId,
      work: {
        action: ACTIONS.transition,
        payload: { key, path, to: noop ? instance.status : rule.to, ...(noop || stamp === undefined ? {} : { stamp }) } satisfies TransitionWork,
      },
    });
  }

  /** delete shows the instance STOPPING and starts the Operation that removes it. */
  async delete(ref: InstanceRef, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const key = instanceKey(ref.project, ref.scope, ref.name);
    const path = instancePath(ref.project, ref.scope, ref.name);
    const instance = await this.store.transact(async (tx) => {
      const record = await tx.get<StoredInstance>(INSTANCES_KIND, key);
      if (record === undefined) throw notFound(path);
      if (record.value.status !== 'TERMINATED') await tx.put(INSTANCES_KIND, key, { ...record.value, status: 'STOPPING' }, { expectRevision: record.revision });
      return record.value;
    });
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: 'delete',
      targetPath: path,
      targetId: instance.id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.delete, payload: { key, path, to: 'TERMINATED' } satisfies TransitionWork },
    });
  }

  /** set replaces labels, metadata or tags; the body's fingerprint must be the current one (412 otherwise). */
  async set(ref: InstanceRef, method: SetMethod, body: unknown, principal: Principal, requestId: string | undefined): Promise<StoredOperation> {
    const earlier = await this.operations.byRequestId(ref.project, ref.scope, requestId);
    if (earlier !== undefined) return earlier;
    const { decodeLabels, decodeMetadata, decodeTags } = await decoder();
    const instance = await this.get(ref);
    const fingerprintOf = (part: string) =>
      String((instance.properties[part] as { fingerprint?: unknown } | undefined)?.fingerprint ?? EMPTY_LABEL_FINGERPRINT);
    const value =
      method === 'setLabels'
        ? decodeLabels(body, instance.labelFingerprint)
        : method === 'setMetadata'
          ? decodeMetadata(body, fingerprintOf('metadata'), ref.project, this.ids)
          : decodeTags(body, fingerprintOf('tags'), ref.project, this.ids);
    const path = instancePath(ref.project, ref.scope, ref.name);
    return this.operations.start({
      project: ref.project,
      scope: ref.scope,
      operationType: method,
      targetPath: path,
      targetId: instance.id,
      user: principal.email,
      requestId,
      work: { action: ACTIONS.change, payload: { key: instanceKey(ref.project, ref.scope, ref.name), path, method, value } satisfies ChangeWork },
    });
  }

  /**
   * createManaged writes, inside `tx`, an instance a managed instance group makes from its template,
   * PROVISIONING (the group's updater moves it on with setManagedStatus); its path.
   */
  async createManaged(
    tx: Transaction,
    project: string,
    zone: string,
    name: string,
    templatePath: string,
    template: StoredTemplate,
    group: string,
  ): Promise<string> {
    const { decodeInstance } = await decoder();
    const scope: Scope = { kind: 'zone', name: zone };
    const decoded = decodeInstance({ name }, template, { project, zone, checkPermission: () => undefined }, this.ids);
    const instance = await this.#materialise(tx, { project, scope, id: uint64Id(this.ids), decoded, template: templatePath, createdBy: group });
    await tx.put(INSTANCES_KIND, instanceKey(project, scope, name), instance, { expectRevision: 0 });
    return instancePath(project, scope, name);
  }

  /** setManagedStatus moves, inside `tx`, a group's instance to `status` (RUNNING stamps its start); nothing when it is gone. */
  async setManagedStatus(tx: Transaction, path: string, status: InstanceStatus): Promise<void> {
    const key = managedKey(path);
    const record = key === undefined ? undefined : await tx.get<StoredInstance>(INSTANCES_KIND, key);
    if (key === undefined || record === undefined) return;
    const stamps = status === 'RUNNING' ? { lastStartTime: this.clock.now() } : status === 'STOPPING' ? { lastStopTime: this.clock.now() } : {};
    await tx.put(INSTANCES_KIND, key, { ...record.value, status, ...stamps }, { expectRevision: record.revision });
  }

  /**
   * retemplateManaged gives, inside `tx`, a group's instance the properties of another template
   * in place (a restart or refresh by its group): its machine type, labels, metadata and the rest,
   * keeping its addresses and disks.
   */
  async retemplateManaged(tx: Transaction, path: string, templatePath: string, template: StoredTemplate): Promise<void> {
    const key = managedKey(path);
    const record = key === undefined ? undefined : await tx.get<StoredInstance>(INSTANCES_KIND, key);
    if (key === undefined || record === undefined) return;
    const current = record.value;
    const zone = current.scope.kind === 'zone' ? current.scope.name : '';
    const { decodeInstance } = await decoder();
    const decoded = decodeInstance({ name: current.name }, template, { project: current.project, zone, checkPermission: () => undefined }, this.ids);
    const createdBy = ((current.properties['metadata'] as { items?: { key: string; value: string }[] } | undefined)?.items ?? []).find(
      (item) => item.key === 'created-by',
    )?.value;
    const next: StoredInstance = {
      ...current,
      machineType: decoded.machineType,
      sourceInstanceTemplate: templatePath,
      labels: decoded.labels,
      labelFingerprint: Object.keys(decoded.labels).length === 0 ? EMPTY_LABEL_FINGERPRINT : newFingerprint(this.ids),
      fingerprint: newFingerprint(this.ids),
      properties: {
        ...decoded.properties,
        networkInterfaces: current.properties['networkInterfaces'],
        disks: current.properties['disks'],
        metadata: withOrigin(decoded.properties['metadata'], templatePath, createdBy),
      },
    };
    await tx.put(INSTANCES_KIND, key, next, { expectRevision: record.revision });
  }

  /** removeManaged deletes, inside `tx`, an instance its group deletes or replaces (nothing when it is gone already). */
  async removeManaged(tx: Transaction, path: string): Promise<void> {
    const key = managedKey(path);
    if (key !== undefined) await tx.delete(INSTANCES_KIND, key);
  }

  /** template reads `sourceInstanceTemplate` (global, or regional in the zone's region), or throws the real 404 / 400. */
  async #template(reference: string, project: string, zone: string): Promise<{ readonly path: string; readonly value: StoredTemplate }> {
    const path = resourcePathOf(reference, project);
    const match = path === undefined ? null : /^projects\/([^/]+)\/(?:global|regions\/([^/]+))\/instanceTemplates\/([^/]+)$/.exec(path);
    if (path === undefined || match === null) throw invalidFieldValue('sourceInstanceTemplate', reference, 'The URL is malformed.');
    const [, templateProject, region, name] = match as unknown as [string, string, string | undefined, string];
    if (region !== undefined && !zone.startsWith(`${region}-`)) {
      throw invalidFieldValue(
        'sourceInstanceTemplate',
        reference,
        `Regional instance template must be in the same region as the instance: '${zone}' is not in '${region}'.`,
      );
    }
    const value = await this.templates.get(templateProject, region === undefined ? GLOBAL : { kind: 'region', name: region }, name);
    return { path, value };
  }

  /** materialise gives a decoded instance its network addresses and its disks' names, reading which addresses are taken in `tx`. */
  async #materialise(
    tx: Transaction,
    input: { project: string; scope: Scope; id: string; decoded: DecodedInstance; template?: string; createdBy?: string },
  ): Promise<StoredInstance> {
    const { project, scope, decoded } = input;
    const zone = scope.kind === 'zone' ? scope.name : '';
    const region = zone.replace(/-[a-z]$/, '');
    const others = await tx.list<StoredInstance>(INSTANCES_KIND, { prefix: `${project}/` });
    const internal = new Set<string>();
    const external = new Set<string>();
    for (const { value } of others) {
      for (const nic of (value.properties['networkInterfaces'] ?? []) as Record<string, unknown>[]) {
        if (typeof nic['networkIP'] === 'string') internal.add(`${String(nic['subnetwork'])} ${nic['networkIP']}`);
        for (const config of (nic['accessConfigs'] ?? []) as Record<string, unknown>[]) if (typeof config['natIP'] === 'string') external.add(config['natIP']);
      }
    }
    const interfaces = ((decoded.properties['networkInterfaces'] ?? []) as Record<string, unknown>[]).map((nic) => {
      const subnetwork = typeof nic['subnetwork'] === 'string' ? nic['subnetwork'] : `projects/${project}/regions/${region}/subnetworks/default`;
      const subnetRegion = /\/regions\/([^/]+)\//.exec(subnetwork)?.[1] ?? region;
      if (subnetRegion !== region) throw invalidFieldValue('resource.networkInterfaces[0].subnetwork', subnetwork, `Subnetwork must be in region '${region}'.`);
      const used = new Set([...internal].filter((entry) => entry.startsWith(`${subnetwork} `)).map((entry) => entry.slice(subnetwork.length + 1)));
      const networkIP = typeof nic['networkIP'] === 'string' ? nic['networkIP'] : freeAddress(subnetRange(region), used);
      if (networkIP === undefined) throw badRequest(`The subnetwork '${subnetwork}' has no free IP address left.`);
      internal.add(`${subnetwork} ${networkIP}`);
      const accessConfigs = ((nic['accessConfigs'] ?? []) as Record<string, unknown>[]).map((config) => {
        const natIP = typeof config['natIP'] === 'string' && config['natIP'] !== '' ? config['natIP'] : freeAddress(EXTERNAL_RANGE, external, 1);
        if (natIP === undefined) throw badRequest('No external IP address is left in the region.');
        external.add(natIP);
        return { ...config, natIP, networkTier: config['networkTier'] ?? 'PREMIUM' };
      });
      return {
        ...nic,
        subnetwork,
        networkIP,
        stackType: nic['stackType'] ?? 'IPV4_ONLY',
        fingerprint: newFingerprint(this.ids),
        ...(accessConfigs.length > 0 ? { accessConfigs } : {}),
      };
    });
    const disks = ((decoded.properties['disks'] ?? []) as Record<string, unknown>[]).map((disk, index) => {
      const { initializeParams, ...rest } = disk as { initializeParams?: { diskName?: string; diskSizeGb?: string } } & Record<string, unknown>;
      const diskName = initializeParams?.diskName ?? (index === 0 ? decoded.name : `${decoded.name}-${index}`);
      return {
        ...rest,
        source: typeof disk['source'] === 'string' ? disk['source'] : `projects/${project}/${`zones/${zone}`}/disks/${diskName}`,
        deviceName: disk['deviceName'] ?? (input.template === undefined ? diskName : `persistent-disk-${index}`),
        index,
        mode: disk['mode'] ?? 'READ_WRITE',
        interface: disk['interface'] ?? 'SCSI',
        autoDelete: disk['autoDelete'] ?? true,
        boot: disk['boot'] ?? false,
        diskSizeGb: initializeParams?.diskSizeGb ?? '10',
      };
    });
    return {
      id: input.id,
      name: decoded.name,
      project,
      scope,
      creationTime: this.clock.now(),
      status: 'PROVISIONING',
      machineType: decoded.machineType,
      ...(input.template === undefined ? {} : { sourceInstanceTemplate: input.template }),
      fingerprint: newFingerprint(this.ids),
      labels: decoded.labels,
      labelFingerprint: Object.keys(decoded.labels).length === 0 ? EMPTY_LABEL_FINGERPRINT : newFingerprint(this.ids),
      properties: {
        ...decoded.properties,
        networkInterfaces: interfaces,
        disks,
        metadata: withOrigin(decoded.properties['metadata'], input.template, input.createdBy),
      },
    };
  }
}

const PAST: Readonly<Record<LifecycleMethod, string>> = { start: 'started', stop: 'stopped', suspend: 'suspended', resume: 'resumed', reset: 'reset' };

/** managedKey is the store key of the instance at `path` (`projects/p/zones/Z/instances/N`). */
function managedKey(path: string): string | undefined {
  const match = /^projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)$/.exec(path);
  return match === null ? undefined : instanceKey(match[1]!, { kind: 'zone', name: match[2]! }, match[3]!);
}

/** withOrigin is an instance's metadata with the items the service adds: the template it came from and the group that made it. */
function withOrigin(given: unknown, template: string | undefined, createdBy: string | undefined): Record<string, unknown> {
  const metadata = (given ?? {}) as { items?: { key: string; value: string }[] } & Record<string, unknown>;
  const items = [
    ...(metadata.items ?? []).filter((item) => item.key !== 'instance-template' && item.key !== 'created-by'),
    ...(template === undefined ? [] : [{ key: 'instance-template', value: template }]),
    ...(createdBy === undefined ? [] : [{ key: 'created-by', value: createdBy }]),
  ];
  return { ...metadata, ...(items.length > 0 ? { items } : {}) };
}
