import type { Store } from '../../../store/store.ts';
import { INSTANCE_TEMPLATES_KIND, type StoredTemplate } from '../instance-templates/index.ts';
import type { ManagerRef, ManagerService, StoredManager } from '../instance-group-managers/index.ts';
import { INSTANCES_KIND, type StoredInstance } from '../instances/index.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { ComputeError, notFound } from '../shared/errors.ts';
import type { PagedSource } from '../shared/list-query.ts';
import { type Scope, scopePath } from '../shared/locations.ts';
import type { ManagedInstanceGroup } from './instance-group.ts';
import { ListInstancesSchema } from './schema.ts';

/** GroupInstance is one entry of listInstances: the instance's path and its status. */
export interface GroupInstance {
  readonly instance: string;
  readonly status: string;
}

/**
 * InstanceGroupService is the read view of the instance groups managed instance groups manage
 * (instanceGroups and regionInstanceGroups get, list, aggregatedList, listInstances): each is its
 * manager's, same name and place, its members the manager's instances. fogbank has no unmanaged
 * instance groups.
 */
export class InstanceGroupService {
  constructor(
    private readonly store: Store,
    private readonly managers: ManagerService,
  ) {}

  /** get reads the instance group of the manager `ref` names, or throws the real 404 (for the instance group). */
  async get(ref: ManagerRef): Promise<ManagedInstanceGroup> {
    let manager: StoredManager;
    try {
      manager = await this.managers.get(ref);
    } catch (error) {
      if (error instanceof ComputeError && error.httpStatus === 404)
        throw notFound(`projects/${ref.project}/${scopePath(ref.scope)}/instanceGroups/${ref.name}`);
      throw error;
    }
    return this.#view(manager);
  }

  /** source reads one scope's instance groups, or every scope's, a page at a time in key order. */
  source(project: string, scope?: Scope): PagedSource<ManagedInstanceGroup> {
    const managers = this.managers.source(project, scope);
    return async (after, limit) => Promise.all((await managers(after, limit)).map(async ({ key, value }) => ({ key, value: await this.#view(value) })));
  }

  /** instances is listInstances: the group's instances with their status, only the RUNNING ones when `instanceState` says so. */
  async instances(ref: ManagerRef, body: unknown, field: string): Promise<{ readonly group: ManagedInstanceGroup; readonly items: GroupInstance[] }> {
    const input = decodeResource<{ instanceState?: string }>(ListInstancesSchema, body ?? {}, field);
    const group = await this.get(ref);
    const items: GroupInstance[] = [];
    for (const member of group.manager.members) {
      const [, project, , zone, , name] = member.instance.split('/');
      const record = await this.store.get<StoredInstance>(INSTANCES_KIND, `${project}/zones/${zone}/${name}`);
      if (record === undefined) continue;
      if (input.instanceState === 'RUNNING' && record.value.status !== 'RUNNING') continue;
      items.push({ instance: member.instance, status: record.value.status });
    }
    return { group, items };
  }

  /** view is a manager's instance group, networked as its template's first interface says (the region's default subnetwork unless it names one). */
  async #view(manager: StoredManager): Promise<ManagedInstanceGroup> {
    const match = /^projects\/([^/]+)\/(global|regions\/[^/]+)\/instanceTemplates\/([^/]+)$/.exec(manager.instanceTemplate);
    const template = match === null ? undefined : (await this.store.get<StoredTemplate>(INSTANCE_TEMPLATES_KIND, `${match[1]}/${match[2]}/${match[3]}`))?.value;
    const nic = ((template?.properties['networkInterfaces'] ?? []) as Record<string, unknown>[])[0] ?? {};
    const { scope } = manager;
    const region = scope.kind === 'region' ? scope.name : scope.kind === 'zone' ? scope.name.replace(/-[a-z]$/, '') : '';
    return {
      manager,
      scope: manager.scope,
      network: typeof nic['network'] === 'string' ? nic['network'] : `projects/${manager.project}/global/networks/default`,
      subnetwork: typeof nic['subnetwork'] === 'string' ? nic['subnetwork'] : `projects/${manager.project}/regions/${region}/subnetworks/default`,
    };
  }
}
