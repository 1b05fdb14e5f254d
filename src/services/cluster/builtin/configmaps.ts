/** v1 ConfigMap behaviour: key names, a key in both maps, `immutable`, and the `kubectl get configmaps` columns. */
import { invalid, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { dataCount, validateImmutable, validateKeys } from './config-keys.ts';

/** configMapBehaviour is ConfigMap's part of the generic strategy. */
export const configMapBehaviour: KindBehaviour = {
  validate(configMap) {
    const errors: FieldError[] = [...validateKeys(configMap['data'], 'data'), ...validateKeys(configMap['binaryData'], 'binaryData')];
    const data = (configMap['data'] ?? {}) as Record<string, unknown>;
    for (const key of Object.keys((configMap['binaryData'] ?? {}) as Record<string, unknown>)) {
      if (Object.hasOwn(data, key)) errors.push(invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
    return errors;
  },
  validateUpdate: (configMap, old) => validateImmutable(configMap, old, ['data', 'binaryData']),
  tableColumns: [NAME_COLUMN, column('Data', 'Data contains the configuration data.', 0, 'integer'), AGE_COLUMN],
  tableRow: (configMap, now) => [
    configMap.metadata.name ?? '',
    dataCount(configMap['data'], configMap['binaryData']),
    ageSince(configMap.metadata.creationTimestamp, now),
  ],
};
