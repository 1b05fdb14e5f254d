/**
 * The `admission.k8s.io/v1` AdmissionReview a webhook is sent, and the checks its answer must pass
 * (1.32 `webhook/request/admissionreview.go` CreateAdmissionObjects / VerifyAdmissionResponse), with
 * the apiserver's texts. Empty subResource, name, namespace and userInfo members are left out;
 * object, oldObject and options are null when absent; dryRun is always present.
 */
import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../attributes.ts';

/** ReviewResponse is the part of a webhook's `response` the apiserver reads. */
export interface ReviewResponse {
  readonly uid?: unknown;
  readonly allowed?: unknown;
  readonly status?: { readonly code?: number; readonly reason?: string; readonly message?: string; readonly details?: unknown };
  readonly patch?: unknown;
  readonly patchType?: unknown;
  readonly warnings?: unknown;
  readonly auditAnnotations?: unknown;
}

function kindOf(attributes: AdmissionAttributes): { group: string; version: string; kind: string } {
  const { view } = attributes;
  return view.responseKind ?? { group: view.group, version: view.version, kind: view.kind };
}

/** reviewRequest builds the review for one call (a new uid per call, reinvocations included). */
export function reviewRequest(attributes: AdmissionAttributes): { uid: string; body: Buffer } {
  const uid = randomUUID();
  const { view, userInfo } = attributes;
  const resource = { group: view.group, version: view.version, resource: view.resource };
  const user: Record<string, unknown> = {};
  if (userInfo.name !== '') user['username'] = userInfo.name;
  if (userInfo.uid !== undefined && userInfo.uid !== '') user['uid'] = userInfo.uid;
  if (userInfo.groups.length > 0) user['groups'] = userInfo.groups;
  if (userInfo.extra !== undefined && Object.keys(userInfo.extra).length > 0) user['extra'] = userInfo.extra;
  const request: Record<string, unknown> = { uid, kind: kindOf(attributes), resource };
  if (view.subresource !== undefined) request['subResource'] = view.subresource;
  request['requestKind'] = kindOf(attributes);
  request['requestResource'] = resource;
  if (view.subresource !== undefined) request['requestSubResource'] = view.subresource;
  if (attributes.name !== '') request['name'] = attributes.name;
  if (attributes.namespace !== '') request['namespace'] = attributes.namespace;
  request['operation'] = attributes.operation;
  request['userInfo'] = user;
  request['object'] = attributes.object ?? null;
  request['oldObject'] = attributes.oldObject ?? null;
  request['dryRun'] = attributes.dryRun;
  request['options'] = attributes.options;
  return { uid, body: Buffer.from(JSON.stringify({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request })) };
}

/** InvalidResponse is an answer that fails the checks: reported as `received invalid webhook response: <message>`. */
export class InvalidResponse extends Error {
  override readonly name = 'InvalidResponse';
}

/** verifyResponse parses and checks a webhook's answer body for the review `uid`; `mutating` allows a patch. */
export function verifyResponse(body: unknown, uid: string, mutating: boolean): ReviewResponse {
  const review = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const response = review['response'];
  if (response === null || typeof response !== 'object' || Array.isArray(response)) throw new InvalidResponse('webhook response was absent');
  const answer = response as ReviewResponse;
  const got = typeof answer.uid === 'string' ? answer.uid : '';
  if (got !== uid) throw new InvalidResponse(`expected response.uid="${uid}", got "${got}"`);
  const apiVersion = typeof review['apiVersion'] === 'string' ? review['apiVersion'] : '';
  const kind = typeof review['kind'] === 'string' ? review['kind'] : '';
  if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    throw new InvalidResponse(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group}/${version}, Kind=${kind}`);
  }
  const hasPatch = answer.patch !== undefined && answer.patch !== null && answer.patch !== '';
  const hasType = answer.patchType !== undefined && answer.patchType !== null;
  if (mutating) {
    if (hasPatch && !hasType) throw new InvalidResponse('webhook returned response.patch but not response.patchType');
    if (hasType && !hasPatch) throw new InvalidResponse('webhook returned response.patchType but not response.patch');
    if (hasType && answer.patchType === '') throw new InvalidResponse('webhook returned invalid response.patchType of ""');
  } else {
    if (hasPatch) throw new InvalidResponse('validating webhook may not return response.patch');
    if (hasType) throw new InvalidResponse('validating webhook may not return response.patchType');
  }
  return answer;
}
