/**
 * The wire shapes of `apiextensions.k8s.io/v1` CustomResourceDefinition, as JSON: the object the
 * CRD resource stores, and JSONSchemaProps, the OpenAPI v3 schema of a version. Shared by the
 * schema machinery (`crd/schema/`), the CEL rules (`crd/cel/`), the CRD's own validation
 * (`crd/definition/`) and the serving engine. Field names are exactly the wire's.
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';

/** ValidationRule is one `x-kubernetes-validations` entry: a CEL rule and how its failure reads. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate' | string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** JSONSchemaProps is an OpenAPI v3 schema node as a CRD version declares it (apiextensions/v1 JSONSchemaProps). */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** A schema, or a boolean (false: no additional properties; true: any). */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** CustomResourceColumnDefinition is one `additionalPrinterColumns` entry of a version. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** CustomResourceSubresourceScale says where a custom resource keeps its replica counts. */
export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** CustomResourceDefinitionVersion is one entry of `spec.versions`. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: CustomResourceSubresourceScale };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: { jsonPath: string }[];
}

/** CustomResourceDefinitionNames are a custom resource's names (`spec.names`, `status.acceptedNames`). */
export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

/** CustomResourceDefinitionCondition is one entry of `status.conditions`. */
export interface CustomResourceDefinitionCondition {
  type: 'Established' | 'NamesAccepted' | 'NonStructuralSchema' | 'Terminating' | 'KubernetesAPIApprovalPolicyConformant' | string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** CustomResourceDefinitionSpec is `spec` of a CRD. */
export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster' | string;
  versions: CustomResourceDefinitionVersion[];
  conversion?: { strategy: 'None' | 'Webhook' | string; webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] } };
  preserveUnknownFields?: boolean;
}

/** CustomResourceDefinitionStatus is `status` of a CRD, as the apiextensions controllers keep it. */
export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

/** CustomResourceDefinition is the stored `apiextensions.k8s.io/v1` object. */
export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}
