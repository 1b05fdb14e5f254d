import { PEnum, PInt32, PMessage, PRepeated, PString, PUint64, PBool, type Decoded } from '../shared/proto-schema.ts';

const FixedOrPercent = PMessage('FixedOrPercent', { fixed: PInt32(), percent: PInt32(), calculated: PInt32() });

/** UpdatePolicySchema is InstanceGroupManagerUpdatePolicy. */
const UpdatePolicySchema = PMessage('InstanceGroupManagerUpdatePolicy', {
  type: PEnum('InstanceGroupManagerUpdatePolicy.Type', ['OPPORTUNISTIC', 'PROACTIVE']),
  minimalAction: PEnum('InstanceGroupManagerUpdatePolicy.MinimalAction', ['NONE', 'REFRESH', 'REPLACE', 'RESTART']),
  mostDisruptiveAllowedAction: PEnum('InstanceGroupManagerUpdatePolicy.MostDisruptiveAllowedAction', ['NONE', 'REFRESH', 'REPLACE', 'RESTART']),
  replacementMethod: PEnum('InstanceGroupManagerUpdatePolicy.ReplacementMethod', ['RECREATE', 'SUBSTITUTE']),
  instanceRedistributionType: PEnum('InstanceGroupManagerUpdatePolicy.InstanceRedistributionType', ['NONE', 'PROACTIVE']),
  maxSurge: FixedOrPercent,
  maxUnavailable: FixedOrPercent,
});

/** ManagerSchema is the InstanceGroupManager message as fogbank reads it (output-only members accepted and replaced). */
export const ManagerSchema = PMessage('InstanceGroupManager', {
  kind: PString(),
  id: PUint64(),
  creationTimestamp: PString(),
  selfLink: PString(),
  zone: PString(),
  region: PString(),
  instanceGroup: PString(),
  fingerprint: PString(),
  name: PString(),
  description: PString(),
  baseInstanceName: PString(),
  instanceTemplate: PString(),
  targetSize: PInt32(),
  versions: PRepeated(PMessage('InstanceGroupManagerVersion', { instanceTemplate: PString(), name: PString(), targetSize: FixedOrPercent })),
  updatePolicy: UpdatePolicySchema,
  namedPorts: PRepeated(PMessage('NamedPort', { name: PString(), port: PInt32() })),
  listManagedInstancesResults: PEnum('InstanceGroupManager.ListManagedInstancesResults', ['PAGELESS', 'PAGINATED']),
});
/** ManagerInput is a decoded InstanceGroupManager body. */
export type ManagerInput = Decoded<typeof ManagerSchema>;

/** InstancesListSchema is the body of deleteInstances, recreateInstances and abandonInstances. */
export const InstancesListSchema = PMessage('InstanceGroupManagersDeleteInstancesRequest', {
  instances: PRepeated(PString()),
  skipInstancesOnValidationError: PBool(),
});

/** SetTemplateSchema is InstanceGroupManagersSetInstanceTemplateRequest. */
export const SetTemplateSchema = PMessage('InstanceGroupManagersSetInstanceTemplateRequest', { instanceTemplate: PString() });

const ACTIONS = ['NONE', 'REFRESH', 'RESTART', 'REPLACE'] as const;

/** ApplyUpdatesSchema is InstanceGroupManagersApplyUpdatesRequest (RegionInstanceGroupManagersApplyUpdatesRequest is the same). */
export const ApplyUpdatesSchema = PMessage('InstanceGroupManagersApplyUpdatesRequest', {
  instances: PRepeated(PString()),
  allInstances: PBool(),
  minimalAction: PEnum('InstanceGroupManagersApplyUpdatesRequest.MinimalAction', ACTIONS),
  mostDisruptiveAllowedAction: PEnum('InstanceGroupManagersApplyUpdatesRequest.MostDisruptiveAllowedAction', ACTIONS),
});
