/**
 * The backend services views: every backend service, global and regional, with the policies it
 * attaches, and one backend service whose backend and edge security policies link to the
 * policy's view and are attached or detached there (setSecurityPolicy, setEdgeSecurityPolicy).
 */
import { useState } from 'preact/hooks';
import { path } from '../api.ts';
import { href } from '../route.ts';
import type { AttachedPolicy, BackendServiceDetail, BackendServiceSummary } from '../../../services/compute/public-read-models.ts';
import { ActionResult, Facts, Problem, useAction, useComputeItem, useComputeList } from './compute-shared.tsx';

interface PolicySummary {
  readonly key: string;
  readonly project: string;
  readonly location: string;
  readonly name: string;
  readonly type: string;
}

/** PolicyLink links to an attached policy's view (a path naming no policy is shown as it is). */
function PolicyLink({ policy, slot }: { policy: AttachedPolicy | undefined; slot: string }) {
  if (policy === undefined) return null;
  if (policy.key === undefined) return <code>{policy.path}</code>;
  return (
    <a href={href('compute', 'policy', policy.key)} data-attached={slot}>
      {policy.name}
    </a>
  );
}

/** BackendServiceList is the backend services card of `#/compute`. */
export function BackendServiceList() {
  const { items, problem } = useComputeList<BackendServiceSummary>('backend-services', 'backendServices');
  return (
    <section aria-labelledby="backends-title" class="card">
      <h2 id="backends-title">Backend services</h2>
      <Problem text={problem} />
      {items?.length === 0 && <p class="empty">No backend services.</p>}
      <ul class="plain">
        {items?.map((service) => (
          <li key={service.key} data-backend={service.key}>
            <a href={href('compute', 'backend', service.key)}>{service.name}</a>{' '}
            <span class="muted">
              {service.project} · {service.location} · {service.loadBalancingScheme}
              {service.securityPolicy === undefined ? '' : ` · policy ${service.securityPolicy.name}`}
              {service.edgeSecurityPolicy === undefined ? '' : ` · edge policy ${service.edgeSecurityPolicy.name}`}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** SLOTS are a backend service's two policy fields and how the view names them. */
const SLOTS = [
  ['securityPolicy', 'Security policy'],
  ['edgeSecurityPolicy', 'Edge security policy'],
] as const;

/** BackendServiceView is `#/compute/backend/<key>`. */
export function BackendServiceView({ serviceKey }: { serviceKey: string }) {
  const { item: service, problem, gone } = useComputeItem<BackendServiceDetail>(path('compute', 'backend-services', serviceKey));
  const { items: policies } = useComputeList<PolicySummary>('policies', 'policies');
  const action = useAction();
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const base = path('compute', 'backend-services', serviceKey);
  const setPolicy = (slot: string, policy: string | null): void => void action.run('POST', `${base}/security-policy`, { slot, policy });
  const remove = async (): Promise<void> => {
    if (!confirm(`Delete the backend service ${service?.name ?? serviceKey}?`)) return;
    if (await action.run('DELETE', base)) location.hash = href('compute');
  };
  // An edge policy is a global backend service's only (v1 has no regional setEdgeSecurityPolicy).
  const slots = SLOTS.filter(([slot]) => slot === 'securityPolicy' || service?.location === 'global');
  const candidates = (policies ?? []).filter((policy) => policy.project === service?.project);
  return (
    <div class="compute">
      <section class="card wide" aria-labelledby="backend-title">
        <a href={href('compute')}>← Compute</a>
        <h1 id="backend-title">{service?.name ?? serviceKey}</h1>
        <Problem text={gone ? `The backend service ${serviceKey} does not exist (any more).` : problem} />
        {service !== undefined && (
          <>
            <Facts
              label="Backend service"
              facts={[
                ['Project', service.project],
                ['Location', service.location],
                ['Load balancing scheme', service.loadBalancingScheme],
                ['Protocol', service.protocol],
                ...slots.map(([slot, label]) => [label, <PolicyLink policy={service[slot]} slot={slot} />] as const),
                ['Created', new Date(service.created).toLocaleString()],
              ]}
            />
            {slots.map(([slot, label]) => (
              <fieldset key={slot} class="row" data-slot={slot}>
                <legend class="visually-hidden">{label}</legend>
                {service[slot] !== undefined && (
                  <button type="button" disabled={action.busy} data-action={`detach-${slot}`} onClick={() => setPolicy(slot, null)}>
                    Detach {label.toLowerCase()}
                  </button>
                )}
                <label>
                  {service[slot] === undefined ? `Attach ${label.toLowerCase()}` : `Replace ${label.toLowerCase()} with`}{' '}
                  <select value={chosen[slot] ?? ''} onChange={(event) => setChosen({ ...chosen, [slot]: (event.target as HTMLSelectElement).value })}>
                    <option value="">(a policy)</option>
                    {candidates.map((policy) => (
                      <option key={policy.key} value={policy.key}>
                        {policy.name} ({policy.location}, {policy.type})
                      </option>
                    ))}
                  </select>
                </label>
                <button
                  type="button"
                  disabled={action.busy || (chosen[slot] ?? '') === ''}
                  data-action={`attach-${slot}`}
                  onClick={() => setPolicy(slot, chosen[slot] ?? '')}
                >
                  {service[slot] === undefined ? 'Attach' : 'Replace'}
                </button>
              </fieldset>
            ))}
            <div class="row">
              <button type="button" class="danger" disabled={action.busy} data-action="delete" onClick={remove}>
                Delete…
              </button>
            </div>
            <ActionResult action={action} />
          </>
        )}
      </section>
      {service !== undefined && (
        <section class="card wide" aria-labelledby="backend-settings-title">
          <h2 id="backend-settings-title">Settings</h2>
          <pre class="yaml">{JSON.stringify(service.settings, null, 2)}</pre>
        </section>
      )}
    </div>
  );
}
