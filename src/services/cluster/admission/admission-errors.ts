/**
 * The admission plugins' refusals as the apiserver builds them (1.32 `admission/errors.go`
 * NewForbidden, `policy/validating/dispatcher.go`): `<resource>[.<group>] "<name>" is forbidden:
 * <msg>`, the name falling back to the object's name, its generateName, then `Unknown`; the code
 * from the reason (Forbidden 403, Unauthorized 401, RequestEntityTooLarge 413, else 422 Invalid).
 */
import { groupResourceText, StatusError } from '../apimachinery/status.ts';
import type { AdmissionAttributes } from './attributes.ts';

const CODES: Readonly<Record<string, number>> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413 };

/** nameForMessages is NewForbidden's name: the request's, the object's, its generateName, `Unknown`. */
export function nameForMessages(attributes: AdmissionAttributes): string {
  if (attributes.name !== '') return attributes.name;
  const meta = (attributes.object ?? attributes.oldObject)?.metadata;
  if ((meta?.name ?? '') !== '') return meta!.name!;
  if ((meta?.generateName ?? '') !== '') return meta!.generateName!;
  return 'Unknown';
}

/** admissionForbidden is a policy's refusal with the decision's reason (default Invalid, 422). */
export function admissionForbidden(attributes: AdmissionAttributes, message: string, reason: string | undefined): StatusError {
  const gr = { group: attributes.view.group, resource: attributes.view.resource };
  const name = nameForMessages(attributes);
  const why = reason === undefined || reason === '' ? 'Invalid' : reason;
  return new StatusError(CODES[why] ?? 422, why, `${groupResourceText(gr)} "${name}" is forbidden: ${message}`, {
    name,
    group: gr.group,
    kind: gr.resource,
    causes: [{ message }],
  });
}

/** plainForbidden is NewForbidden without a decision's reason: 403 Forbidden (webhook matchConditions errors). */
export function plainForbidden(attributes: AdmissionAttributes, message: string): StatusError {
  const gr = { group: attributes.view.group, resource: attributes.view.resource };
  const name = nameForMessages(attributes);
  return new StatusError(403, 'Forbidden', `${groupResourceText(gr)} "${name}" is forbidden: ${message}`, { name, group: gr.group, kind: gr.resource });
}
