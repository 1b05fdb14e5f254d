import { invalidFieldValue } from '../shared/errors.ts';

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
    throw invalidFieldValue(
      'requestId',
      value,
      `The request ID must be a valid UUID with the exception that zero UUID is not supported (${ZERO_UUID}).`,
    );
  }
  return value.toLowerCase();
}
