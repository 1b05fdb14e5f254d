/**
 * The `/scale` subresource of a custom resource whose version declares one: an `autoscaling/v1`
 * Scale read from and written to the paths the CRD names (`specReplicasPath`,
 * `statusReplicasPath`, `labelSelectorPath`), as the apiextensions apiserver's ScaleREST does, so
 * `kubectl scale` works. A write changes the spec path alone; the object is then validated as
 * any update of it (schema, rules, generation bump).
 */
import { ageSince } from '../apimachinery/human-duration.ts';
import type { ResourceStrategy, ResourceView } from '../apimachinery/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN } from '../builtin/behaviour.ts';
import { SCALE_SCHEMA, SCALE_SCHEMAS } from '../builtin/scale-subresource.ts';
import type { CustomObject } from './custom-resource-view.ts';
import { badRequest } from '../apimachinery/status.ts';
import { ScaleError, scaleOf, withSpecReplicas } from './definition/index.ts';
import type { CustomResourceSubresourceScale } from './types.ts';

/**
 * scaled runs one read or write of the scale paths; an object whose fields there are not what the
 * paths need (possible only under `x-kubernetes-preserve-unknown-fields`) is a 400 with the
 * apiserver's accessor text, never a failure of the server.
 */
function scaled<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ScaleError) throw badRequest(error.message);
    throw error;
  }
}

/** requestedReplicas reads the Scale's `spec.replicas` (0 when absent, as Go's zero value). */
function requestedReplicas(scale: CustomObject): number {
  const value = (scale['spec'] as { replicas?: unknown } | undefined)?.replicas;
  return typeof value === 'number' ? value : 0;
}

/** customScaleStrategy writes a Scale's replicas onto its custom object at the spec path. */
function customScaleStrategy(main: ResourceStrategy<CustomObject>, paths: CustomResourceSubresourceScale): ResourceStrategy<CustomObject> {
  return {
    ...main,
    invalidKind: { group: 'autoscaling', kind: 'Scale' },
    prepareForCreate: () => undefined,
    prepareForUpdate(object, old, request) {
      const replicas = requestedReplicas(object);
      const managedFields = object.metadata.managedFields;
      for (const key of Object.keys(object)) delete object[key];
      const { metadata, ...rest } = old;
      Object.assign(
        object,
        scaled(() => withSpecReplicas(paths, rest, replicas)),
      );
      object.metadata = { ...structuredClone(metadata), ...(managedFields === undefined ? {} : { managedFields }) };
      main.prepareForUpdate(object, old, request);
    },
    validateUpdate(object, old, request) {
      const replicas = scaled(() => scaleOf(paths, object)).specReplicas;
      if (replicas < 0) return [{ type: 'FieldValueInvalid', field: 'spec.replicas', value: replicas, detail: 'must be greater than or equal to 0' }];
      return main.validateUpdate(object, old, request);
    },
    tableColumns: [NAME_COLUMN, AGE_COLUMN],
    tableRow: (object, now) => [object.metadata.name ?? '', ageSince(object.metadata.creationTimestamp, now)],
  };
}

/** customScaleView is the `/scale` view of a custom resource's main view. */
export function customScaleView(
  main: ResourceView<CustomObject, CustomObject>,
  paths: CustomResourceSubresourceScale,
): ResourceView<CustomObject, CustomObject> {
  const { decode: _decode, patchTypes: _patchTypes, openApiSchemas: _openApi, typedListItems: _typed, ...rest } = main;
  return {
    ...rest,
    subresource: 'scale',
    kind: 'Scale',
    listKind: 'ScaleList',
    responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    parent: main,
    strategy: customScaleStrategy(main.strategy, paths),
    schemas: SCALE_SCHEMAS,
    schemaName: SCALE_SCHEMA,
    listSchemaName: SCALE_SCHEMA,
    toExternal: (stored) => {
      const { name, namespace, uid, resourceVersion, creationTimestamp } = stored.metadata;
      const counts = scaled(() => scaleOf(paths, main.toExternal(stored)));
      return {
        metadata: {
          ...(name === undefined ? {} : { name }),
          ...(namespace === undefined ? {} : { namespace }),
          ...(uid === undefined ? {} : { uid }),
          ...(resourceVersion === undefined ? {} : { resourceVersion }),
          ...(creationTimestamp === undefined ? {} : { creationTimestamp }),
        },
        spec: { replicas: counts.specReplicas },
        status: { replicas: counts.statusReplicas, ...(counts.selector === '' ? {} : { selector: counts.selector }) },
      };
    },
    toInternal: (external) => external,
  };
}
