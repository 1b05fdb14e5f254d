/**
 * The apiregistration.k8s.io/v1 types (k8s.io/kube-aggregator v0.32 `pkg/apis/apiregistration/v1/types.go`),
 * in the form of the generated schemas: kube-aggregator is not part of k8s.io/api, whose tree the
 * generator reads for enums and protobuf layouts, so these few types are described here, with
 * upstream's descriptions, list types and patch strategies. kubeSchemas() adds them to the
 * generated ones, so APIService is served by the generic strategy like any built-in kind.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { TYPE_FIELDS } from '../resources/meta-schemas.ts';

/** APIREGISTRATION_PACKAGE is the prefix of the types' component names. */
export const APIREGISTRATION_PACKAGE = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1';

const P = APIREGISTRATION_PACKAGE;
const str = (description: string): Schema => ({ type: 'string', description });
const int32 = (description: string): Schema => ({ type: 'integer', format: 'int32', description });

/** APIREGISTRATION_SCHEMAS are the component schemas of APIService and the types it reaches. */
export const APIREGISTRATION_SCHEMAS: SchemaSet = {
  [`${P}.APIService`]: {
    type: 'object',
    goName: 'APIService',
    description: 'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
    properties: {
      ...TYPE_FIELDS,
      spec: { $ref: `${P}.APIServiceSpec` },
      status: { $ref: `${P}.APIServiceStatus` },
    },
  },
  [`${P}.APIServiceSpec`]: {
    type: 'object',
    goName: 'APIServiceSpec',
    description:
      'APIServiceSpec contains information for locating and communicating with a server. Only https is supported, though you are able to disable certificate verification.',
    required: ['groupPriorityMinimum', 'versionPriority'],
    properties: {
      caBundle: {
        type: 'string',
        format: 'byte',
        description:
          "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.",
      },
      group: str('Group is the API group name this server hosts'),
      groupPriorityMinimum: int32(
        "GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. Note that other versions of this group might specify even higher GroupPriorityMinimum values such that the whole group gets a higher priority. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10). The secondary sort is based on the alphabetical comparison of the name of the object.  (v1.bar before v1.foo) We'd recommend something like: *.k8s.io (except extensions) at 18000 and PaaSes (OpenShift, Deis) are recommended to be in the 2000s",
      ),
      insecureSkipTLSVerify: {
        type: 'boolean',
        description:
          'InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.',
      },
      service: { $ref: `${P}.ServiceReference` },
      version: str('Version is the API version this server hosts.  For example, "v1"'),
      versionPriority: int32(
        'VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10). Since it\'s inside of a group, the number can be small, probably in the 10s. In case of equal version priorities, the version string will be used to compute the order inside a group. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.',
      ),
    },
  },
  [`${P}.ServiceReference`]: {
    type: 'object',
    goName: 'ServiceReference',
    description: 'ServiceReference holds a reference to Service.legacy.k8s.io',
    properties: {
      name: str('Name is the name of the service'),
      namespace: str('Namespace is the namespace of the service'),
      port: int32(
        'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
      ),
    },
  },
  [`${P}.APIServiceStatus`]: {
    type: 'object',
    goName: 'APIServiceStatus',
    description: 'APIServiceStatus contains derived information about an API server',
    properties: {
      conditions: {
        type: 'array',
        items: { $ref: `${P}.APIServiceCondition` },
        listType: 'map',
        listMapKeys: ['type'],
        patchStrategy: 'merge',
        patchMergeKey: 'type',
        description: 'Current service state of apiService.',
      },
    },
  },
  [`${P}.APIServiceCondition`]: {
    type: 'object',
    goName: 'APIServiceCondition',
    description: 'APIServiceCondition describes the state of an APIService at a particular point',
    required: ['type', 'status'],
    properties: {
      lastTransitionTime: { type: 'string', format: 'date-time', description: 'Last time the condition transitioned from one status to another.' },
      message: str('Human-readable message indicating details about last transition.'),
      reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: str('Status is the status of the condition. Can be True, False, Unknown.'),
      type: str('Type is the type of the condition.'),
    },
  },
};
