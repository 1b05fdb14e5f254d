/**
 * What `fogbank guard --backend-service NAME` writes of the backend service it fronts: Cloud
 * Armor's request log is a load balancer's, and its entries name the backend service in the
 * monitored resource's labels (`resource.type` `http_load_balancer`, `resource.labels.backend_service_name`),
 * while `jsonPayload.enforcedSecurityPolicy.name` names the policy that decided.
 */

const NAME = /^projects\/([^/]+)\/(?:global|regions\/([^/]+))\/backendServices\/([^/]+)$/;

/** logResourceOf is the log entry's `resource` for a backend service name (`projects/p/global/backendServices/web`). */
export function logResourceOf(backendService: string): Readonly<Record<string, unknown>> {
  const match = NAME.exec(backendService);
  if (match === null) return { type: 'http_load_balancer', labels: { backend_service_name: backendService } };
  const [, project, region, name] = match as unknown as [string, string, string | undefined, string];
  return { type: 'http_load_balancer', labels: { project_id: project, backend_service_name: name, zone: region ?? 'global' } };
}

/** policyNameOf is a policy's resource name from its wire form (`projects/p/global/securityPolicies/pol`), for the guard's lines. */
export function policyNameOf(policy: Readonly<Record<string, unknown>>): string {
  const link = String(policy['selfLink'] ?? '');
  const at = link.indexOf('/projects/');
  return at < 0 ? String(policy['name'] ?? '?') : link.slice(at + 1);
}
