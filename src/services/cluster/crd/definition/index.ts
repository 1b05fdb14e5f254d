/**
 * The CustomResourceDefinition object itself, as the apiextensions-apiserver treats it: its
 * defaulting and validation (names, group, versions, schemas, printer columns, conversion,
 * immutability), the naming and establishing controllers' status, the Table columns and cells of
 * its custom resources (additionalPrinterColumns through client-go JSONPath), and the scale
 * subresource's paths. Pure functions; the serving engine calls them.
 */
export { acceptNames } from './accept-names.ts';
export { defaultCustomResourceDefinition } from './defaults.ts';
export { evaluateJsonPath, executeJsonPath, JsonPathError, parseJsonPath, printJsonPathResults } from './jsonpath.ts';
export { printerCells, printerColumns } from './printer-columns.ts';
export { ScaleError, type ScaleValues, scaleOf, validateScaleSpec, validateScaleStatus, withSpecReplicas } from './scale.ts';
export { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus } from './validate-definition.ts';
