import type { ReadView } from '../../../store/store.ts';
import { invalidFieldValue } from '../shared/errors.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { OPERATIONS_KIND, type StoredOperation } from './operation.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** REQUEST_IDS_KIND is the store kind mapping `project/scopePath/requestId` to the Operation it started. */
export const REQUEST_IDS_KIND = 'compute.requestIds';

/** parseRequestId checks the optional `requestId` query parameter: a valid, non-zero UUID. */
export function parseRequestId(query: Record<string, unknown>): string | undefined {
  const raw = query['requestId'];
  if (raw === undefined || raw === '') return undefined;
  const value = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  if (!UUID.test(value) || value === ZERO_UUID) {
    throw invalidFieldValue('requestId', value, `The request ID must be a valid UUID with the exception that zero UUID is not supported (${ZERO_UUID}).`);
  }
  return value.toLowerCase();
}

/** RequestIdRef is what a requestId entry holds: the key of the Operation it started. */
export interface RequestIdRef {
  readonly operationKey: string;
  readonly insertTime: number;
}

/** requestIdKey is the store key of a requestId entry; requestIds are scoped like their Operations. */
export function requestIdKey(project: string, scope: Scope, requestId: string): string {
  return `${project}/${scopePath(scope)}/${requestId}`;
}

/** operationForRequestId reads (in `view`: the store or a transaction) the Operation a requestId started. */
export async function operationForRequestId(view: ReadView, key: string): Promise<StoredOperation | undefined> {
  const ref = await view.get<RequestIdRef>(REQUEST_IDS_KIND, key);
  return ref && (await view.get<StoredOperation>(OPERATIONS_KIND, ref.value.operationKey))?.value;
}
