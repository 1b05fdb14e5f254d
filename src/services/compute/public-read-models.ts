/**
 * The read models of compute's workloads as the console's admin API answers them (public.ts
 * makes them): types only, importing nothing, so the browser console reads the same shapes the
 * server writes instead of declaring them again.
 */

/** InstanceSummary is one VM instance in a list. */
export interface InstanceSummary {
  /** The instance's id among every project's instances (`project/zones/Z/name`), for instanceDetail. */
  readonly key: string;
  readonly project: string;
  readonly zone: string;
  readonly name: string;
  /** Its resource path (`projects/p/zones/Z/instances/name`), what the API's methods on it are addressed by. */
  readonly path: string;
  readonly status: string;
  /** The machine type's name (`e2-small`). */
  readonly machineType: string;
  /** The first network interface's internal IPv4 address, or empty. */
  readonly internalIp: string;
  /** The first access config's external address, or empty. */
  readonly externalIp: string;
  /** The path of the template it was made from, or empty. */
  readonly sourceTemplate: string;
  /** The path of the managed instance group that made it (its `created-by` metadata), or empty. */
  readonly createdBy: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Creation time, epoch milliseconds. */
  readonly created: number;
}

/** InstanceDetail is one instance with what it was given and filled (network interfaces, disks, metadata, …, references as paths). */
export interface InstanceDetail extends InstanceSummary {
  readonly lastStartTime?: number;
  readonly lastStopTime?: number;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** ManagedGroupSummary is one managed instance group, zonal or regional, in a list. */
export interface ManagedGroupSummary {
  readonly key: string;
  readonly project: string;
  /** The zone's or the region's name. */
  readonly location: string;
  readonly locationKind: 'zone' | 'region';
  readonly name: string;
  readonly path: string;
  readonly description: string;
  readonly targetSize: number;
  /** The path of the template new instances get. */
  readonly instanceTemplate: string;
  /** How many instances the group has now (those it is deleting included). */
  readonly instances: number;
  /** Whether every instance is up and nothing is being done to any (the API's `status.isStable`). */
  readonly isStable: boolean;
  readonly created: number;
}

/** ManagedInstanceSummary is one instance of a group: what the group is doing to it and the instance's own status. */
export interface ManagedInstanceSummary {
  readonly name: string;
  readonly zone: string;
  /** The instance's key, for instanceDetail. */
  readonly key: string;
  readonly path: string;
  /** `CREATING`, `DELETING`, `RECREATING` or `NONE` (listManagedInstances' `currentAction`). */
  readonly currentAction: string;
  /** The instance's status, absent while it does not exist yet (listManagedInstances' `instanceStatus`). */
  readonly status?: string;
  /** The path of the template it is (or will be) made from. */
  readonly template: string;
}

/** ManagedGroupDetail is one group with its versions, update policy and managed instances. */
export interface ManagedGroupDetail extends ManagedGroupSummary {
  readonly baseInstanceName: string;
  readonly versions: readonly { readonly instanceTemplate: string; readonly name?: string; readonly targetSize?: Readonly<Record<string, unknown>> }[];
  readonly updatePolicy: Readonly<Record<string, unknown>>;
  readonly managedInstances: readonly ManagedInstanceSummary[];
}

/** AttachedPolicy is a security policy a backend service names: its path as kept, and its key when it is a policy's path. */
export interface AttachedPolicy {
  readonly path: string;
  /** The policy's key (securityPolicyDetail's), or undefined when the path names none. */
  readonly key: string | undefined;
  readonly name: string;
}

/** BackendServiceSummary is one backend service, global or regional, in a list. */
export interface BackendServiceSummary {
  readonly key: string;
  readonly project: string;
  /** `global` or the region's name. */
  readonly location: string;
  readonly name: string;
  readonly path: string;
  readonly loadBalancingScheme: string;
  readonly protocol: string;
  readonly securityPolicy?: AttachedPolicy;
  readonly edgeSecurityPolicy?: AttachedPolicy;
  readonly created: number;
}

/** BackendServiceDetail is one backend service with the rest of its settings (backends, health checks, timeouts; references as paths). */
export interface BackendServiceDetail extends BackendServiceSummary {
  readonly settings: Readonly<Record<string, unknown>>;
}
