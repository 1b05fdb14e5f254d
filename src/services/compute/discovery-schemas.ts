/**
 * Compute's Discovery schemas. The request bodies fogbank validates (InstanceTemplate,
 * SecurityPolicy, SecurityPolicyRule, the setLabels body) are converted from the same TypeBox
 * schemas that decode them, so the document lists exactly the fields fogbank accepts; the answers
 * fogbank only writes (Operation, the lists, the catalog) are described here by the fields it
 * renders.
 */

import type { TSchema } from '@sinclair/typebox';
import type { DiscoverySchema } from '../../core/discovery.ts';
import { SECURITY_POLICY_TYPES } from './identifiers.ts';
import { BackendServiceSchema, SecurityPolicyReferenceSchema } from './backend-services/schema.ts';
import { InstanceTemplateSchema } from './instance-templates/schema.ts';
import { InstanceSchema, InstancesSetLabelsSchema } from './instances/schema.ts';
import { InstancesListSchema, ManagerSchema, SetTemplateSchema } from './instance-group-managers/schema.ts';
import { PolicySchema, RuleSchema, SetLabelsSchema } from './security-policies/model.ts';

type Schemas = Record<string, DiscoverySchema>;

const PROTO_FORMATS: Readonly<Record<string, { type: string; format?: string }>> = {
  TYPE_STRING: { type: 'string' },
  TYPE_BOOL: { type: 'boolean' },
  TYPE_INT32: { type: 'integer', format: 'int32' },
  TYPE_UINT32: { type: 'integer', format: 'uint32' },
  TYPE_INT64: { type: 'string', format: 'int64' },
  TYPE_UINT64: { type: 'string', format: 'uint64' },
  TYPE_DOUBLE: { type: 'number', format: 'double' },
};

/** messageName is a PMessage's short name (`type.googleapis.com/google.cloud.compute.v1.Tags` → `Tags`). */
function messageName(schema: Readonly<Record<string, unknown>>): string | undefined {
  const full = schema['protoMessage'];
  return typeof full === 'string' ? full.slice(full.lastIndexOf('.') + 1) : undefined;
}

/** fromTypeBox converts one field schema, registering every message it reaches in `into` and referring to it by `$ref`. */
function fromTypeBox(schema: TSchema, into: Schemas): DiscoverySchema {
  const s = schema as Readonly<Record<string, unknown>>;
  const name = messageName(s);
  if (name !== undefined) {
    if (into[name] === undefined) {
      into[name] = { id: name, type: 'object' };
      const properties = Object.fromEntries(Object.entries(s['properties'] as Record<string, TSchema>).map(([key, value]) => [key, fromTypeBox(value, into)]));
      into[name] = { id: name, type: 'object', properties };
    }
    return { $ref: name };
  }
  if (s['type'] === 'array') return { type: 'array', items: fromTypeBox(s['items'] as TSchema, into) };
  if (s['type'] === 'object' && s['patternProperties'] !== undefined) {
    const [value] = Object.values(s['patternProperties'] as Record<string, TSchema>);
    return { type: 'object', additionalProperties: fromTypeBox(value!, into) };
  }
  if (Array.isArray(s['enum'])) {
    // Only the real spellings: the spec's neutral ones are accepted but never documented.
    const values = (s['enum'] as string[]).filter((value) => SECURITY_POLICY_TYPES.read(value)?.spelling !== 'spec');
    return { type: 'string', enum: values };
  }
  return PROTO_FORMATS[String(s['protoType'])] ?? { type: String(s['type']) };
}

const str = { type: 'string' } as const;
const int64 = { type: 'string', format: 'int64' } as const;
const uint64 = { type: 'string', format: 'uint64' } as const;
const int32 = { type: 'integer', format: 'int32' } as const;
const ref = (id: string) => ({ $ref: id }) as const;
const object = (id: string, properties: Record<string, unknown>): DiscoverySchema => ({ id, type: 'object', properties });
const warning = {
  type: 'object',
  properties: { code: str, message: str, data: { type: 'array', items: { type: 'object', properties: { key: str, value: str } } } },
};

/** list is a `compute#…List` page of `item`. */
const list = (id: string, item: string): DiscoverySchema =>
  object(id, { kind: str, id: str, items: { type: 'array', items: ref(item) }, nextPageToken: str, selfLink: str, warning });

/** aggregated is a `compute#…AggregatedList` page: scoped lists keyed by `zones/…`, `regions/…`, `global`. */
const aggregated = (id: string, member: string, item: string): DiscoverySchema =>
  object(id, {
    kind: str,
    id: str,
    items: { type: 'object', additionalProperties: { type: 'object', properties: { [member]: { type: 'array', items: ref(item) }, warning } } },
    nextPageToken: str,
    selfLink: str,
    unreachables: { type: 'array', items: str },
    warning,
  });

/** computeSchemas lists every schema compute's served methods name, and the messages those reach. */
export function computeSchemas(): Schemas {
  const schemas: Schemas = {};
  for (const schema of [
    InstanceTemplateSchema,
    PolicySchema,
    RuleSchema,
    SetLabelsSchema,
    BackendServiceSchema,
    SecurityPolicyReferenceSchema,
    InstanceSchema,
    InstancesSetLabelsSchema,
    ManagerSchema,
    InstancesListSchema,
    SetTemplateSchema,
  ])
    fromTypeBox(schema, schemas);
  schemas['GlobalSetLabelsRequest'] = { ...schemas['RegionSetLabelsRequest'], id: 'GlobalSetLabelsRequest' };
  schemas['Operation'] = object('Operation', {
    kind: str,
    id: uint64,
    name: str,
    zone: str,
    region: str,
    clientOperationId: str,
    operationType: str,
    targetLink: str,
    targetId: uint64,
    status: { type: 'string', enum: ['DONE', 'PENDING', 'RUNNING'] },
    statusMessage: str,
    user: str,
    progress: int32,
    insertTime: str,
    startTime: str,
    endTime: str,
    description: str,
    error: { type: 'object', properties: { errors: { type: 'array', items: { type: 'object', properties: { code: str, location: str, message: str } } } } },
    httpErrorStatusCode: int32,
    httpErrorMessage: str,
    selfLink: str,
  });
  schemas['OperationList'] = list('OperationList', 'Operation');
  schemas['OperationAggregatedList'] = aggregated('OperationAggregatedList', 'operations', 'Operation');
  schemas['InstanceTemplateList'] = list('InstanceTemplateList', 'InstanceTemplate');
  schemas['InstanceTemplateAggregatedList'] = aggregated('InstanceTemplateAggregatedList', 'instanceTemplates', 'InstanceTemplate');
  schemas['SecurityPolicyList'] = object('SecurityPolicyList', {
    kind: str,
    id: str,
    items: { type: 'array', items: ref('SecurityPolicy') },
    nextPageToken: str,
    warning,
  });
  schemas['SecurityPoliciesAggregatedList'] = aggregated('SecurityPoliciesAggregatedList', 'securityPolicies', 'SecurityPolicy');
  schemas['SecurityPoliciesListPreconfiguredExpressionSetsResponse'] = object('SecurityPoliciesListPreconfiguredExpressionSetsResponse', {
    preconfiguredExpressionSets: {
      type: 'object',
      properties: {
        wafRules: {
          type: 'object',
          properties: {
            expressionSets: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: str,
                  aliases: { type: 'array', items: str },
                  expressions: { type: 'array', items: { type: 'object', properties: { id: str, sensitivity: int32 } } },
                },
              },
            },
          },
        },
      },
    },
  });
  schemas['BackendServiceList'] = list('BackendServiceList', 'BackendService');
  schemas['BackendServiceAggregatedList'] = aggregated('BackendServiceAggregatedList', 'backendServices', 'BackendService');
  schemas['InstanceList'] = list('InstanceList', 'Instance');
  schemas['InstanceGroupManagerList'] = list('InstanceGroupManagerList', 'InstanceGroupManager');
  schemas['RegionInstanceGroupManagerList'] = list('RegionInstanceGroupManagerList', 'InstanceGroupManager');
  schemas['InstanceGroupManagerAggregatedList'] = aggregated('InstanceGroupManagerAggregatedList', 'instanceGroupManagers', 'InstanceGroupManager');
  // One body for the three methods on some of a group's instances, under each name Google gives it.
  const members = schemas['InstanceGroupManagersDeleteInstancesRequest']!;
  for (const id of [
    'InstanceGroupManagersRecreateInstancesRequest',
    'InstanceGroupManagersAbandonInstancesRequest',
    'RegionInstanceGroupManagersDeleteInstancesRequest',
    'RegionInstanceGroupManagersRecreateRequest',
    'RegionInstanceGroupManagersAbandonInstancesRequest',
  ])
    schemas[id] = { ...members, id };
  const actionEnum = { type: 'string', enum: ['NONE', 'REFRESH', 'REPLACE', 'RESTART'] };
  const applyUpdates = object('InstanceGroupManagersApplyUpdatesRequest', {
    instances: { type: 'array', items: str },
    allInstances: { type: 'boolean' },
    minimalAction: actionEnum,
    mostDisruptiveAllowedAction: actionEnum,
  });
  schemas['InstanceGroupManagersApplyUpdatesRequest'] = applyUpdates;
  schemas['RegionInstanceGroupManagersApplyUpdatesRequest'] = { ...applyUpdates, id: 'RegionInstanceGroupManagersApplyUpdatesRequest' };
  schemas['RegionInstanceGroupManagersSetTemplateRequest'] = {
    ...schemas['InstanceGroupManagersSetInstanceTemplateRequest']!,
    id: 'RegionInstanceGroupManagersSetTemplateRequest',
  };
  const managedInstance = object('ManagedInstance', {
    instance: str,
    id: uint64,
    name: str,
    currentAction: str,
    instanceStatus: str,
    version: { type: 'object', properties: { instanceTemplate: str, name: str } },
  });
  schemas['ManagedInstance'] = managedInstance;
  for (const id of ['InstanceGroupManagersListManagedInstancesResponse', 'RegionInstanceGroupManagersListInstancesResponse'])
    schemas[id] = object(id, { managedInstances: { type: 'array', items: ref('ManagedInstance') }, nextPageToken: str });
  schemas['InstanceAggregatedList'] = aggregated('InstanceAggregatedList', 'instances', 'Instance');
  schemas['InstanceGroup'] = object('InstanceGroup', {
    kind: str,
    id: uint64,
    creationTimestamp: str,
    name: str,
    description: str,
    network: str,
    fingerprint: { type: 'string', format: 'byte' },
    zone: str,
    region: str,
    selfLink: str,
    size: int32,
    subnetwork: str,
  });
  schemas['InstanceGroupList'] = list('InstanceGroupList', 'InstanceGroup');
  // fogbank has no autoscalers: its lists are empty, their items as Google names them.
  schemas['Autoscaler'] = object('Autoscaler', { kind: str, id: uint64, name: str, target: str, zone: str, region: str, selfLink: str });
  schemas['AutoscalerList'] = list('AutoscalerList', 'Autoscaler');
  schemas['RegionAutoscalerList'] = list('RegionAutoscalerList', 'Autoscaler');
  schemas['RegionInstanceGroupList'] = list('RegionInstanceGroupList', 'InstanceGroup');
  schemas['InstanceGroupAggregatedList'] = aggregated('InstanceGroupAggregatedList', 'instanceGroups', 'InstanceGroup');
  schemas['InstanceWithNamedPorts'] = object('InstanceWithNamedPorts', { instance: str, status: str });
  for (const id of ['InstanceGroupsListInstances', 'RegionInstanceGroupsListInstances']) schemas[id] = list(id, 'InstanceWithNamedPorts');
  for (const id of ['InstanceGroupsListInstancesRequest', 'RegionInstanceGroupsListInstancesRequest'])
    schemas[id] = object(id, { instanceState: { type: 'string', enum: ['ALL', 'RUNNING'] } });
  schemas['Image'] = object('Image', {
    kind: str,
    id: uint64,
    name: str,
    family: str,
    description: str,
    status: str,
    archiveSizeBytes: int64,
    diskSizeGb: int64,
    creationTimestamp: str,
    selfLink: str,
    licenses: { type: 'array', items: str },
    architecture: str,
  });
  schemas['ImageList'] = list('ImageList', 'Image');
  schemas['Network'] = object('Network', {
    kind: str,
    id: uint64,
    name: str,
    description: str,
    autoCreateSubnetworks: { type: 'boolean' },
    subnetworks: { type: 'array', items: str },
    routingConfig: { type: 'object', properties: { routingMode: str } },
    creationTimestamp: str,
    selfLink: str,
  });
  schemas['NetworkList'] = list('NetworkList', 'Network');
  schemas['Subnetwork'] = object('Subnetwork', {
    kind: str,
    id: uint64,
    name: str,
    network: str,
    region: str,
    ipCidrRange: str,
    gatewayAddress: str,
    creationTimestamp: str,
    selfLink: str,
  });
  schemas['SubnetworkList'] = list('SubnetworkList', 'Subnetwork');
  schemas['SubnetworkAggregatedList'] = aggregated('SubnetworkAggregatedList', 'subnetworks', 'Subnetwork');
  return schemas;
}
