/**
 * The structural-schema machinery of custom resources, as pure functions: the apiserver's checks
 * of a CRD version's openAPIV3Schema, OpenAPI v3 value validation of custom objects (kube-openapi's
 * texts), pruning of unknown fields, structural defaulting, and the schema as the server-side apply
 * code sees it.
 */
export { defaultCustomObject } from './defaulting.ts';
export { pruneCustomObject } from './pruning.ts';
export { ssaSchemaSet } from './ssa-schema.ts';
export { validateStructuralSchema } from './structural.ts';
export { validateCustomObject, validateCustomStatus } from './value-validation.ts';
