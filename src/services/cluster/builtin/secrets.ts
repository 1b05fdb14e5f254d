/**
 * v1 Secret behaviour: `stringData` merged into `data` (write-only, a `stringData` key wins), the
 * `Opaque` default type, the per-type required keys and immutable `type` of upstream
 * `ValidateSecret`, `immutable`, and the `kubectl get secrets` columns. Malformed base64 in `data`
 * is refused while decoding (the schema's `byte` format).
 */
import { immutable, required, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { dataCount, validateImmutable, validateKeys } from './config-keys.ts';

/** REQUIRED_KEYS are the data keys each well-known type needs. */
const REQUIRED_KEYS: Readonly<Record<string, readonly string[]>> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

function mergeStringData(secret: BuiltinObject): void {
  const stringData = secret['stringData'] as Record<string, string> | undefined;
  if (stringData !== undefined) {
    const data = { ...(secret['data'] as Record<string, string> | undefined) };
    for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
    secret['data'] = data;
    delete secret['stringData'];
  }
  if ((secret['type'] ?? '') === '') secret['type'] = 'Opaque';
}

/** secretBehaviour is Secret's part of the generic strategy. */
export const secretBehaviour: KindBehaviour = {
  prepareForCreate: mergeStringData,
  prepareForUpdate: mergeStringData,
  validate(secret) {
    const errors: FieldError[] = validateKeys(secret['data'], 'data');
    const data = (secret['data'] ?? {}) as Record<string, string>;
    const type = String(secret['type'] ?? 'Opaque');
    for (const key of REQUIRED_KEYS[type] ?? []) if (data[key] === undefined) errors.push(required(`data[${key}]`));
    if (type === 'kubernetes.io/basic-auth' && data['username'] === undefined && data['password'] === undefined) errors.push(required('data[username]'));
    if (type === 'kubernetes.io/service-account-token' && (secret.metadata.annotations?.['kubernetes.io/service-account.name'] ?? '') === '') {
      errors.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
    }
    const size = Object.values(data).reduce((sum, value) => sum + Buffer.byteLength(value, 'base64'), 0);
    if (size > 1048576) errors.push({ type: 'FieldValueTooLong', field: 'data', detail: 'may not be more than 1048576 bytes' });
    return errors;
  },
  validateUpdate(secret, old) {
    const errors = validateImmutable(secret, old, ['data']);
    if ((secret['type'] ?? 'Opaque') !== (old['type'] ?? 'Opaque')) errors.push(immutable('type', secret['type']));
    return errors;
  },
  tableColumns: [NAME_COLUMN, column('Type', 'The type of the secret'), column('Data', 'The number of entries in the secret', 0, 'integer'), AGE_COLUMN],
  tableRow: (secret, now) => [
    secret.metadata.name ?? '',
    String(secret['type'] ?? ''),
    dataCount(secret['data']),
    ageSince(secret.metadata.creationTimestamp, now),
  ],
  selectableFields: (secret) => ({ type: String(secret['type'] ?? '') }),
};
