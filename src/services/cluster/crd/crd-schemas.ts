/**
 * The schemas of `apiextensions.k8s.io/v1` CustomResourceDefinition (upstream
 * `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1`, descriptions shortened), which
 * decode CRD bodies (Go-worded type errors, unknown fields) and make its OpenAPI v3 document, so
 * `kubectl apply -f crd.yaml` validates and `kubectl explain crd.spec` works.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { listSchema, META_SCHEMAS, OBJECT_META } from '../resources/meta-schemas.ts';

const V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';

/** CRD_SCHEMA is the component name of CustomResourceDefinition. */
export const CRD_SCHEMA = `${V1}.CustomResourceDefinition`;
/** CRD_LIST_SCHEMA is the component name of CustomResourceDefinitionList. */
export const CRD_LIST_SCHEMA = `${V1}.CustomResourceDefinitionList`;

const str = (description: string): Schema => ({ type: 'string', description });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const int64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });
const num = (description: string): Schema => ({ type: 'number', format: 'double', description });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, listType: 'atomic', description });
const any = (description: string): Schema => ({ type: 'any', description });
const ref = (name: string): Schema => ({ $ref: `${V1}.${name}` });
const refs = (name: string, description: string): Schema => ({ type: 'array', items: ref(name), listType: 'atomic', description });
const object = (goName: string, description: string, properties: Record<string, Schema>, required?: string[]): Schema => ({
  type: 'object',
  goName,
  description,
  properties,
  ...(required === undefined ? {} : { required }),
});

const NAMES = object(
  'CustomResourceDefinitionNames',
  'CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition',
  {
    categories: strings("categories is a list of grouped resources this custom resource belongs to (e.g. 'all')."),
    kind: str('kind is the serialized kind of the resource. It is normally CamelCase and singular.'),
    listKind: str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
    plural: str('plural is the plural name of the resource to serve. Must be all lowercase.'),
    shortNames: strings('shortNames are short names for the resource, exposed in API discovery documents. Must be all lowercase.'),
    singular: str('singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.'),
  },
  ['plural', 'kind'],
);

/** CRD_SCHEMAS are CustomResourceDefinition, its list and every type they reach, with the meta types. */
export const CRD_SCHEMAS: SchemaSet = {
  ...META_SCHEMAS,
  [CRD_SCHEMA]: object(
    'CustomResourceDefinition',
    'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
    {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      metadata: { $ref: OBJECT_META },
      spec: ref('CustomResourceDefinitionSpec'),
      status: ref('CustomResourceDefinitionStatus'),
    },
    ['spec'],
  ),
  [CRD_LIST_SCHEMA]: listSchema('CustomResourceDefinitionList', CRD_SCHEMA, 'CustomResourceDefinitionList is a list of CustomResourceDefinition objects.'),
  [`${V1}.CustomResourceDefinitionSpec`]: object(
    'CustomResourceDefinitionSpec',
    'CustomResourceDefinitionSpec describes how a user wants their resource to appear',
    {
      conversion: ref('CustomResourceConversion'),
      group: str(
        'group is the API group of the defined custom resource. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
      ),
      names: ref('CustomResourceDefinitionNames'),
      preserveUnknownFields: bool(
        'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage.',
      ),
      scope: str('scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.'),
      versions: refs('CustomResourceDefinitionVersion', 'versions is the list of all API versions of the defined custom resource.'),
    },
    ['group', 'names', 'scope', 'versions'],
  ),
  [`${V1}.CustomResourceDefinitionNames`]: NAMES,
  [`${V1}.CustomResourceConversion`]: object(
    'CustomResourceConversion',
    'CustomResourceConversion describes how to convert different versions of a CR.',
    {
      strategy: str('strategy specifies how custom resources are converted between versions. Allowed values are: - `"None"` - `"Webhook"`'),
      webhook: ref('WebhookConversion'),
    },
    ['strategy'],
  ),
  [`${V1}.WebhookConversion`]: object(
    'WebhookConversion',
    'WebhookConversion describes how to call a conversion webhook',
    {
      clientConfig: any('clientConfig is the instructions for how to call the webhook if strategy is `Webhook`.'),
      conversionReviewVersions: strings('conversionReviewVersions is an ordered list of preferred `ConversionReview` versions the Webhook expects.'),
    },
    ['conversionReviewVersions'],
  ),
  [`${V1}.CustomResourceDefinitionVersion`]: object(
    'CustomResourceDefinitionVersion',
    'CustomResourceDefinitionVersion describes a version for CRD.',
    {
      additionalPrinterColumns: refs('CustomResourceColumnDefinition', 'additionalPrinterColumns specifies additional columns returned in Table output.'),
      deprecated: bool('deprecated indicates this version of the custom resource API is deprecated.'),
      deprecationWarning: str('deprecationWarning overrides the default warning returned to API clients.'),
      name: str('name is the version name, e.g. “v1”, “v2beta1”, etc.'),
      schema: ref('CustomResourceValidation'),
      selectableFields: refs('SelectableField', 'selectableFields specifies paths to fields that may be used as field selectors.'),
      served: bool('served is a flag enabling/disabling this version from being served via REST APIs'),
      storage: bool(
        'storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.',
      ),
      subresources: ref('CustomResourceSubresources'),
    },
    ['name', 'served', 'storage'],
  ),
  [`${V1}.CustomResourceColumnDefinition`]: object(
    'CustomResourceColumnDefinition',
    'CustomResourceColumnDefinition specifies a column for server side printing.',
    {
      description: str('description is a human readable description of this column.'),
      format: str('format is an optional OpenAPI type definition for this column.'),
      jsonPath: str(
        'jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.',
      ),
      name: str('name is a human readable name for the column.'),
      priority: { type: 'integer', format: 'int32', description: 'priority is an integer defining the relative importance of this column compared to others.' },
      type: str('type is an OpenAPI type definition for this column.'),
    },
    ['name', 'type', 'jsonPath'],
  ),
  [`${V1}.SelectableField`]: object(
    'SelectableField',
    'SelectableField specifies the JSON path of a field that may be used with field selectors.',
    {
      jsonPath: str('jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value.'),
    },
    ['jsonPath'],
  ),
  [`${V1}.CustomResourceValidation`]: object('CustomResourceValidation', 'CustomResourceValidation is a list of validation methods for CustomResources.', {
    openAPIV3Schema: ref('JSONSchemaProps'),
  }),
  [`${V1}.CustomResourceSubresources`]: object(
    'CustomResourceSubresources',
    'CustomResourceSubresources defines the status and scale subresources for CustomResources.',
    {
      scale: ref('CustomResourceSubresourceScale'),
      status: any('status indicates the custom resource should serve a `/status` subresource.'),
    },
  ),
  [`${V1}.CustomResourceSubresourceScale`]: object(
    'CustomResourceSubresourceScale',
    'CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources.',
    {
      labelSelectorPath: str('labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`.'),
      specReplicasPath: str('specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`.'),
      statusReplicasPath: str('statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`.'),
    },
    ['specReplicasPath', 'statusReplicasPath'],
  ),
  [`${V1}.JSONSchemaProps`]: object('JSONSchemaProps', 'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/).', {
    $ref: str(''),
    $schema: str(''),
    additionalItems: any('JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true for the boolean property.'),
    additionalProperties: any('JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true for the boolean property.'),
    allOf: refs('JSONSchemaProps', ''),
    anyOf: refs('JSONSchemaProps', ''),
    default: any('default is a default value for undefined object fields.'),
    definitions: { type: 'map', values: ref('JSONSchemaProps') },
    dependencies: { type: 'map', values: any('JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array.') },
    description: str(''),
    enum: { type: 'array', items: any('JSON represents any valid JSON value.'), listType: 'atomic' },
    example: any('JSON represents any valid JSON value.'),
    exclusiveMaximum: bool(''),
    exclusiveMinimum: bool(''),
    externalDocs: object('ExternalDocumentation', 'ExternalDocumentation allows referencing an external resource for extended documentation.', {
      description: str(''),
      url: str(''),
    }),
    format: str('format is an OpenAPI v3 format string. Unknown formats are ignored.'),
    id: str(''),
    items: any('JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an array of JSONSchemaProps.'),
    maxItems: int64(''),
    maxLength: int64(''),
    maxProperties: int64(''),
    maximum: num(''),
    minItems: int64(''),
    minLength: int64(''),
    minProperties: int64(''),
    minimum: num(''),
    multipleOf: num(''),
    not: ref('JSONSchemaProps'),
    nullable: bool(''),
    oneOf: refs('JSONSchemaProps', ''),
    pattern: str(''),
    patternProperties: { type: 'map', values: ref('JSONSchemaProps') },
    properties: { type: 'map', values: ref('JSONSchemaProps') },
    required: strings(''),
    title: str(''),
    type: str(''),
    uniqueItems: bool(''),
    'x-kubernetes-embedded-resource': bool(
      'x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes runtime.Object, with TypeMeta and ObjectMeta.',
    ),
    'x-kubernetes-int-or-string': bool('x-kubernetes-int-or-string specifies that this value is either an integer or a string.'),
    'x-kubernetes-list-map-keys': strings(
      'x-kubernetes-list-map-keys annotates an array with the x-kubernetes-list-type `map` by specifying the keys used as the index of the map.',
    ),
    'x-kubernetes-list-type': str('x-kubernetes-list-type annotates an array to further describe its topology: atomic, set or map.'),
    'x-kubernetes-map-type': str('x-kubernetes-map-type annotates an object to further describe its topology: granular or atomic.'),
    'x-kubernetes-preserve-unknown-fields': bool(
      'x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields which are not specified in the validation schema.',
    ),
    'x-kubernetes-validations': {
      type: 'array',
      items: ref('ValidationRule'),
      listType: 'map',
      listMapKeys: ['rule'],
      description: 'x-kubernetes-validations describes a list of validation rules written in the CEL expression language.',
    },
  }),
  [`${V1}.ValidationRule`]: object(
    'ValidationRule',
    'ValidationRule describes a validation rule written in the CEL expression language.',
    {
      fieldPath: str('fieldPath represents the field path returned when the validation fails.'),
      message: str('Message represents the message displayed when validation fails.'),
      messageExpression: str(
        'MessageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails.',
      ),
      optionalOldSelf: bool('optionalOldSelf is used to opt a transition rule into evaluation even when the object is first created.'),
      reason: str('reason provides a machine-readable validation failure reason that is returned to the caller when a request fails this validation rule.'),
      rule: str('Rule represents the expression which will be evaluated by CEL.'),
    },
    ['rule'],
  ),
  [`${V1}.CustomResourceDefinitionStatus`]: object(
    'CustomResourceDefinitionStatus',
    'CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition',
    {
      acceptedNames: ref('CustomResourceDefinitionNames'),
      conditions: {
        type: 'array',
        items: ref('CustomResourceDefinitionCondition'),
        listType: 'map',
        listMapKeys: ['type'],
        description: 'conditions indicate state for particular aspects of a CustomResourceDefinition',
      },
      storedVersions: strings('storedVersions lists all versions of CustomResources that were ever persisted.'),
    },
  ),
  [`${V1}.CustomResourceDefinitionCondition`]: object(
    'CustomResourceDefinitionCondition',
    'CustomResourceDefinitionCondition contains details for the current condition of this pod.',
    {
      lastTransitionTime: {
        type: 'string',
        format: 'date-time',
        description: 'lastTransitionTime last time the condition transitioned from one status to another.',
      },
      message: str('message is a human-readable message indicating details about last transition.'),
      reason: str("reason is a unique, one-word, CamelCase reason for the condition's last transition."),
      status: str('status is the status of the condition. Can be True, False, Unknown.'),
      type: str('type is the type of the condition. Types include Established, NamesAccepted and Terminating.'),
    },
    ['type', 'status'],
  ),
};
