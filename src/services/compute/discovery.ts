/**
 * The compute API as Discovery describes it: every method the compute family's routes serve
 * (operations/, catalog/, instance-templates/, security-policies/ routes.ts), with Google's ids,
 * paths and parameters. A test holds this list to the registered routes and to the facts taken
 * from Google's published document (test/fixtures/discovery/).
 */

import type { DiscoveryApi, DiscoveryMethod } from '../../core/discovery.ts';
import { type DiscoveryParameters, discoveryMethod, type MethodSpec, QUERY_BOOLEAN, QUERY_STRING } from '../../core/discovery-method.ts';
import { computeSchemas } from './discovery-schemas.ts';

const PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const COMPUTE = 'https://www.googleapis.com/auth/compute';
const COMPUTE_READONLY = 'https://www.googleapis.com/auth/compute.readonly';
/** READ and WRITE are the scopes of compute's reading and changing methods. */
const READ = [PLATFORM, COMPUTE, COMPUTE_READONLY];
const WRITE = [PLATFORM, COMPUTE];

/** LIST_PARAMETERS are the query parameters of every compute list method. */
const LIST_PARAMETERS: DiscoveryParameters = {
  filter: QUERY_STRING,
  maxResults: { type: 'integer', location: 'query', format: 'uint32', default: '500' },
  orderBy: QUERY_STRING,
  pageToken: QUERY_STRING,
  returnPartialSuccess: QUERY_BOOLEAN,
};
/** AGGREGATED_LIST_PARAMETERS are the query parameters of every compute aggregatedList method. */
const AGGREGATED_LIST_PARAMETERS: DiscoveryParameters = {
  ...LIST_PARAMETERS,
  includeAllScopes: QUERY_BOOLEAN,
  serviceProjectNumber: { type: 'string', location: 'query', format: 'int64' },
};
const REQUEST_ID: DiscoveryParameters = { requestId: QUERY_STRING };
const VALIDATE_ONLY: DiscoveryParameters = { validateOnly: QUERY_BOOLEAN };
const UPDATE_MASK: DiscoveryParameters = { updateMask: QUERY_STRING };
const PRIORITY: DiscoveryParameters = { priority: { type: 'integer', location: 'query', format: 'int32' } };

/** The paths below which compute's global, regional and zonal collections and its aggregated lists live. */
const GLOBAL = 'projects/{project}/global';
const REGION = 'projects/{project}/regions/{region}';
const ZONE = 'projects/{project}/zones/{zone}';

/** Collection is one compute collection in one scope (`compute.regionInstanceTemplates` at `…/regions/{region}/instanceTemplates`), its methods declared by what differs. */
interface Collection {
  readonly get: (response: string) => DiscoveryMethod;
  readonly list: (response: string) => DiscoveryMethod;
  /** A method on the collection (`insert`, or a GET of the collection's own such as listPreconfiguredExpressionSets). */
  readonly onCollection: (name: string, httpMethod: DiscoveryMethod['httpMethod'], spec: MethodSpec, suffix?: string) => DiscoveryMethod;
  /** A method on one member: the member itself (`delete`, `patch`) or, given a suffix, a custom verb (`…/{securityPolicy}/addRule`). */
  readonly onMember: (name: string, httpMethod: DiscoveryMethod['httpMethod'], spec: MethodSpec, suffix?: string, member?: string) => DiscoveryMethod;
}

/** collection describes `compute.<resource>` at `<scope>/<plural>`, one member of it named by the path parameter `member`. */
function collection(resource: string, scope: string, plural: string, member: string): Collection {
  const path = `${scope}/${plural}`;
  const id = (name: string): string => `compute.${resource}.${name}`;
  const at = (base: string, suffix: string | undefined): string => (suffix === undefined ? base : `${base}/${suffix}`);
  return {
    get: (response) => discoveryMethod(id('get'), 'GET', `${path}/{${member}}`, { response, scopes: READ }),
    list: (response) => discoveryMethod(id('list'), 'GET', path, { parameters: LIST_PARAMETERS, response, scopes: READ }),
    onCollection: (name, httpMethod, spec, suffix) => discoveryMethod(id(name), httpMethod, at(path, suffix), spec),
    onMember: (name, httpMethod, spec, suffix, named = member) => discoveryMethod(id(name), httpMethod, at(`${path}/{${named}}`, suffix), spec),
  };
}

/** aggregatedList is `compute.<resource>.aggregatedList`, the collection's members across every scope. */
function aggregatedList(resource: string, plural: string, response: string): DiscoveryMethod {
  return discoveryMethod(`compute.${resource}.aggregatedList`, 'GET', `projects/{project}/aggregated/${plural}`, {
    parameters: AGGREGATED_LIST_PARAMETERS,
    response,
    scopes: READ,
  });
}

/** operations are the Operation methods of one scope (global, regional or zonal). */
function operations(resource: string, scope: string): DiscoveryMethod[] {
  const ops = collection(resource, scope, 'operations', 'operation');
  return [
    ops.get('Operation'),
    ops.onMember('wait', 'POST', { response: 'Operation', scopes: READ }, 'wait'),
    ops.onMember('delete', 'DELETE', { scopes: WRITE }),
    ops.list('OperationList'),
  ];
}

/** instanceTemplates are the instance template methods both scopes have. */
function instanceTemplates(resource: string, scope: string): DiscoveryMethod[] {
  const templates = collection(resource, scope, 'instanceTemplates', 'instanceTemplate');
  return [
    templates.onCollection('insert', 'POST', { parameters: REQUEST_ID, request: 'InstanceTemplate', response: 'Operation', scopes: WRITE }),
    templates.get('InstanceTemplate'),
    templates.onMember('delete', 'DELETE', { parameters: REQUEST_ID, response: 'Operation', scopes: WRITE }),
    templates.list('InstanceTemplateList'),
  ];
}

/**
 * securityPolicyMembers are the methods on one security policy both scopes have. The regional
 * ones' rule methods have always listed their path parameters first (`pathParametersFirst`), and
 * only the regional setLabels takes a requestId, as in Google's documents.
 */
function securityPolicyMembers(policies: Collection, regional: boolean): DiscoveryMethod[] {
  const rule = { pathParametersFirst: regional };
  return [
    policies.get('SecurityPolicy'),
    policies.onMember('patch', 'PATCH', { parameters: { ...REQUEST_ID, ...UPDATE_MASK }, request: 'SecurityPolicy', response: 'Operation', scopes: WRITE }),
    policies.onMember('delete', 'DELETE', { parameters: REQUEST_ID, response: 'Operation', scopes: WRITE }),
    policies.onMember('getRule', 'GET', { ...rule, parameters: PRIORITY, response: 'SecurityPolicyRule', scopes: READ }, 'getRule'),
    policies.onMember(
      'addRule',
      'POST',
      { ...rule, parameters: VALIDATE_ONLY, request: 'SecurityPolicyRule', response: 'Operation', scopes: WRITE },
      'addRule',
    ),
    policies.onMember(
      'patchRule',
      'POST',
      { ...rule, parameters: { ...PRIORITY, ...UPDATE_MASK, ...VALIDATE_ONLY }, request: 'SecurityPolicyRule', response: 'Operation', scopes: WRITE },
      'patchRule',
    ),
    policies.onMember('removeRule', 'POST', { ...rule, parameters: PRIORITY, response: 'Operation', scopes: WRITE }, 'removeRule'),
    regional
      ? policies.onMember(
          'setLabels',
          'POST',
          { ...rule, parameters: REQUEST_ID, request: 'RegionSetLabelsRequest', response: 'Operation', scopes: WRITE },
          'setLabels',
          'resource',
        )
      : policies.onMember('setLabels', 'POST', { request: 'GlobalSetLabelsRequest', response: 'Operation', scopes: WRITE }, 'setLabels', 'resource'),
  ];
}

/** backendServices are the backend service methods both scopes have (setEdgeSecurityPolicy is global only in v1). */
function backendServices(resource: string, scope: string, global: boolean): DiscoveryMethod[] {
  const services = collection(resource, scope, 'backendServices', 'backendService');
  const write = (request?: string): MethodSpec => ({
    parameters: REQUEST_ID,
    ...(request === undefined ? {} : { request }),
    response: 'Operation',
    scopes: WRITE,
  });
  return [
    services.onCollection('insert', 'POST', write('BackendService')),
    services.list('BackendServiceList'),
    services.get('BackendService'),
    services.onMember('patch', 'PATCH', write('BackendService')),
    services.onMember('update', 'PUT', write('BackendService')),
    services.onMember('delete', 'DELETE', write()),
    services.onMember('setSecurityPolicy', 'POST', { ...write('SecurityPolicyReference'), pathParametersFirst: !global }, 'setSecurityPolicy'),
    ...(global ? [services.onMember('setEdgeSecurityPolicy', 'POST', write('SecurityPolicyReference'), 'setEdgeSecurityPolicy')] : []),
  ];
}

/** instanceMethods are the zonal instance methods fogbank serves. */
function instanceMethods(): DiscoveryMethod[] {
  const instances = collection('instances', ZONE, 'instances', 'instance');
  const write = (request?: string, parameters: DiscoveryParameters = REQUEST_ID): MethodSpec => ({
    parameters,
    ...(request === undefined ? {} : { request }),
    response: 'Operation',
    scopes: WRITE,
  });
  return [
    instances.onCollection('insert', 'POST', write('Instance', { ...REQUEST_ID, sourceInstanceTemplate: QUERY_STRING, sourceMachineImage: QUERY_STRING })),
    instances.list('InstanceList'),
    instances.get('Instance'),
    instances.onMember('delete', 'DELETE', write()),
    ...(['start', 'stop', 'suspend', 'resume', 'reset'] as const).map((verb) =>
      instances.onMember(
        verb,
        'POST',
        write(undefined, verb === 'stop' || verb === 'suspend' ? { ...REQUEST_ID, discardLocalSsd: QUERY_BOOLEAN } : REQUEST_ID),
        verb,
      ),
    ),
    instances.onMember('setLabels', 'POST', write('InstancesSetLabelsRequest'), 'setLabels'),
    instances.onMember('setMetadata', 'POST', write('Metadata'), 'setMetadata'),
    instances.onMember('setTags', 'POST', write('Tags'), 'setTags'),
  ];
}

/** The request schemas of the methods on some of a group's instances, as Google names them per scope. */
const ZONAL_MEMBER_REQUESTS = {
  deleteInstances: 'InstanceGroupManagersDeleteInstancesRequest',
  recreateInstances: 'InstanceGroupManagersRecreateInstancesRequest',
  abandonInstances: 'InstanceGroupManagersAbandonInstancesRequest',
} as const;
const REGIONAL_MEMBER_REQUESTS = {
  deleteInstances: 'RegionInstanceGroupManagersDeleteInstancesRequest',
  recreateInstances: 'RegionInstanceGroupManagersRecreateRequest',
  abandonInstances: 'RegionInstanceGroupManagersAbandonInstancesRequest',
} as const;

/** managerMethods are the managed instance group methods both scopes have (regional ones list path parameters first where Google's do). */
function managerMethods(resource: string, scope: string): DiscoveryMethod[] {
  const groups = collection(resource, scope, 'instanceGroupManagers', 'instanceGroupManager');
  const write = (request?: string, parameters: DiscoveryParameters = REQUEST_ID): MethodSpec => ({
    parameters,
    ...(request === undefined ? {} : { request }),
    response: 'Operation',
    scopes: WRITE,
  });
  return [
    groups.onCollection('insert', 'POST', write('InstanceGroupManager')),
    groups.list(resource === 'instanceGroupManagers' ? 'InstanceGroupManagerList' : 'RegionInstanceGroupManagerList'),
    groups.get('InstanceGroupManager'),
    groups.onMember('patch', 'PATCH', write('InstanceGroupManager')),
    groups.onMember('delete', 'DELETE', write()),
    groups.onMember(
      'resize',
      'POST',
      write(undefined, { ...REQUEST_ID, size: { type: 'integer', location: 'query', format: 'int32', required: true } }),
      'resize',
    ),
    groups.onMember(
      'listManagedInstances',
      'POST',
      {
        parameters: LIST_PARAMETERS,
        response:
          resource === 'instanceGroupManagers' ? 'InstanceGroupManagersListManagedInstancesResponse' : 'RegionInstanceGroupManagersListInstancesResponse',
        scopes: READ,
      },
      'listManagedInstances',
    ),
    groups.onMember(
      'setInstanceTemplate',
      'POST',
      write(resource === 'instanceGroupManagers' ? 'InstanceGroupManagersSetInstanceTemplateRequest' : 'RegionInstanceGroupManagersSetTemplateRequest'),
      'setInstanceTemplate',
    ),
    groups.onMember(
      'applyUpdatesToInstances',
      'POST',
      // The one method of a group's that takes no requestId.
      write(resource === 'instanceGroupManagers' ? 'InstanceGroupManagersApplyUpdatesRequest' : 'RegionInstanceGroupManagersApplyUpdatesRequest', {}),
      'applyUpdatesToInstances',
    ),
    ...(['deleteInstances', 'recreateInstances', 'abandonInstances'] as const).map((verb) =>
      groups.onMember(verb, 'POST', write(resource === 'instanceGroupManagers' ? ZONAL_MEMBER_REQUESTS[verb] : REGIONAL_MEMBER_REQUESTS[verb]), verb),
    ),
  ];
}

/** instanceGroupMethods are the instance group methods fogbank serves (the read view of managed groups' instance groups), zonal or regional. */
function instanceGroupMethods(resource: 'instanceGroups' | 'regionInstanceGroups', scope: string): DiscoveryMethod[] {
  const groups = collection(resource, scope, 'instanceGroups', 'instanceGroup');
  const regional = resource === 'regionInstanceGroups';
  return [
    groups.list(regional ? 'RegionInstanceGroupList' : 'InstanceGroupList'),
    groups.get('InstanceGroup'),
    groups.onMember(
      'listInstances',
      'POST',
      {
        parameters: LIST_PARAMETERS,
        request: regional ? 'RegionInstanceGroupsListInstancesRequest' : 'InstanceGroupsListInstancesRequest',
        response: regional ? 'RegionInstanceGroupsListInstances' : 'InstanceGroupsListInstances',
        scopes: READ,
      },
      'listInstances',
    ),
  ];
}

const images = collection('images', GLOBAL, 'images', 'image');
const networks = collection('networks', GLOBAL, 'networks', 'network');
const subnetworks = collection('subnetworks', REGION, 'subnetworks', 'subnetwork');
const securityPolicies = collection('securityPolicies', GLOBAL, 'securityPolicies', 'securityPolicy');
const regionSecurityPolicies = collection('regionSecurityPolicies', REGION, 'securityPolicies', 'securityPolicy');
const insertSecurityPolicy: MethodSpec = { parameters: { ...REQUEST_ID, ...VALIDATE_ONLY }, request: 'SecurityPolicy', response: 'Operation', scopes: WRITE };

/** COMPUTE_METHODS are the methods the compute family serves, in the order its routes register them. */
export const COMPUTE_METHODS: readonly DiscoveryMethod[] = [
  ...operations('globalOperations', GLOBAL),
  aggregatedList('globalOperations', 'operations', 'OperationAggregatedList'),
  ...operations('regionOperations', REGION),
  ...operations('zoneOperations', ZONE),
  images.onCollection('getFromFamily', 'GET', { response: 'Image', scopes: READ }, 'family/{family}'),
  images.get('Image'),
  images.list('ImageList'),
  networks.get('Network'),
  networks.list('NetworkList'),
  subnetworks.get('Subnetwork'),
  subnetworks.list('SubnetworkList'),
  aggregatedList('subnetworks', 'subnetworks', 'SubnetworkAggregatedList'),
  ...instanceTemplates('instanceTemplates', GLOBAL),
  aggregatedList('instanceTemplates', 'instanceTemplates', 'InstanceTemplateAggregatedList'),
  ...instanceTemplates('regionInstanceTemplates', REGION),
  securityPolicies.onCollection(
    'listPreconfiguredExpressionSets',
    'GET',
    { parameters: LIST_PARAMETERS, response: 'SecurityPoliciesListPreconfiguredExpressionSetsResponse', scopes: READ },
    'listPreconfiguredExpressionSets',
  ),
  securityPolicies.onCollection('insert', 'POST', insertSecurityPolicy),
  securityPolicies.list('SecurityPolicyList'),
  ...securityPolicyMembers(securityPolicies, false),
  aggregatedList('securityPolicies', 'securityPolicies', 'SecurityPoliciesAggregatedList'),
  regionSecurityPolicies.onCollection('insert', 'POST', insertSecurityPolicy),
  regionSecurityPolicies.list('SecurityPolicyList'),
  ...securityPolicyMembers(regionSecurityPolicies, true),
  ...backendServices('backendServices', GLOBAL, true),
  ...backendServices('regionBackendServices', REGION, false),
  aggregatedList('backendServices', 'backendServices', 'BackendServiceAggregatedList'),
  ...instanceMethods(),
  aggregatedList('instances', 'instances', 'InstanceAggregatedList'),
  ...managerMethods('instanceGroupManagers', ZONE),
  ...managerMethods('regionInstanceGroupManagers', REGION),
  aggregatedList('instanceGroupManagers', 'instanceGroupManagers', 'InstanceGroupManagerAggregatedList'),
  ...instanceGroupMethods('instanceGroups', ZONE),
  ...instanceGroupMethods('regionInstanceGroups', REGION),
  aggregatedList('instanceGroups', 'instanceGroups', 'InstanceGroupAggregatedList'),
  collection('autoscalers', ZONE, 'autoscalers', 'autoscaler').list('AutoscalerList'),
  collection('regionAutoscalers', REGION, 'autoscalers', 'autoscaler').list('RegionAutoscalerList'),
];

/** COMPUTE_DISCOVERY is the compute v1 API fogbank serves. */
export const COMPUTE_DISCOVERY: DiscoveryApi = {
  name: 'compute',
  version: 'v1',
  title: 'Compute Engine API',
  description: 'Creates and runs virtual machines on Google Cloud Platform. ',
  documentationLink: 'https://cloud.google.com/compute/',
  servicePath: 'compute/v1/',
  batchPath: 'batch/compute/v1',
  scopes: {
    [PLATFORM]: 'See, edit, configure, and delete your Google Cloud data and see the email address for your Google Account.',
    [COMPUTE]: 'View and manage your Google Compute Engine resources',
    [COMPUTE_READONLY]: 'View your Google Compute Engine resources',
  },
  methods: COMPUTE_METHODS,
  schemas: computeSchemas(),
};
