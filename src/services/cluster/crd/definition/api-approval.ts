/**
 * The API review rule for CRDs in the Kubernetes community's groups (apiextensions-apiserver
 * `pkg/apihelpers`): `*.k8s.io` and `*.kubernetes.io` need the `api-approved.kubernetes.io`
 * annotation, a URL of the approving review or a reason starting with `unapproved`.
 */

/** API_APPROVED_ANNOTATION is the annotation a protected group's CRD must carry. */
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

/** isProtectedCommunityGroup says whether a group is reserved for reviewed Kubernetes APIs. */
export function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

/** ApprovalState is what the annotation says. */
export type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

/** apiApprovalState reads the annotation and words the reason as GetAPIApprovalState does. */
export function apiApprovalState(annotations: Readonly<Record<string, string>> | undefined): { state: ApprovalState; reason: string } {
  const annotation = annotations?.[API_APPROVED_ANNOTATION] ?? '';
  if (annotation === '') {
    return {
      state: 'missing',
      reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`,
    };
  }
  if (annotation.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: ${JSON.stringify(annotation)}` };
  if (isRequestUriWithHost(annotation)) return { state: 'approved', reason: `approved in ${annotation}` };
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}

/** isRequestUriWithHost approximates Go's url.ParseRequestURI succeeding with a scheme and a host. */
function isRequestUriWithHost(text: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]+/.test(text) || [...text].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f)) return false;
  try {
    const url = new URL(text);
    return url.host !== '';
  } catch {
    return false;
  }
}
