/**
 * The compute views: security policies (rules in priority order; each change in the policy's
 * history with its diff; the backend services attaching it), instance templates, VM instances,
 * managed instance groups, backend services (compute-instances.tsx, compute-groups.tsx,
 * compute-backends.tsx), and Operations as they go PENDING → RUNNING → DONE.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, path } from '../api.ts';
import { href, type Route } from '../route.ts';
import type { BackendServiceSummary } from '../../../services/compute/public-read-models.ts';
import { BackendServiceList, BackendServiceView } from './compute-backends.tsx';
import { GroupList, GroupView } from './compute-groups.tsx';
import { InstanceList, InstanceView } from './compute-instances.tsx';
import { isCompute, Problem, useComputeList } from './compute-shared.tsx';
import { useLiveRefresh } from './use-live.ts';

interface PolicySummary {
  readonly key: string;
  readonly project: string;
  readonly location: string;
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly rules: number;
}

interface DiffLine {
  readonly op: '+' | '-' | '~';
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

interface PolicyDetail extends Omit<PolicySummary, 'rules'> {
  readonly labels: Readonly<Record<string, string>>;
  readonly rules: readonly Readonly<Record<string, unknown>>[];
  readonly history: readonly {
    readonly method: string;
    readonly priority?: number;
    readonly time: number;
    readonly user: string;
    readonly operation: string;
    readonly revision: number;
    readonly diff: readonly DiffLine[];
  }[];
  /** The backend services attaching it (as backend or edge policy). */
  readonly usedBy: readonly BackendServiceSummary[];
}

interface Template {
  readonly key: string;
  readonly project: string;
  readonly name: string;
  readonly description: string;
  readonly created: number;
  readonly machineType: string;
}

interface Operation {
  readonly name: string;
  readonly project: string;
  readonly location: string;
  readonly operationType: string;
  readonly targetPath: string;
  readonly status: string;
  readonly progress: number;
  readonly user: string;
  readonly insertTime: number;
  readonly endTime?: number;
  readonly httpErrorStatusCode?: number;
  readonly httpErrorMessage?: string;
  readonly errors: readonly { readonly code: string; readonly message: string }[];
}

/** ComputeView is `#/compute` and one resource's view: `#/compute/policy/<key>`, `instance/<key>`, `group/<key>`, `backend/<key>`. */
export function ComputeView({ route }: { route: Route }) {
  const key = route[2];
  if (key !== undefined) {
    if (route[1] === 'policy') return <PolicyView policyKey={key} />;
    if (route[1] === 'instance') return <InstanceView instanceKey={key} />;
    if (route[1] === 'group') return <GroupView groupKey={key} />;
    if (route[1] === 'backend') return <BackendServiceView serviceKey={key} />;
  }
  return (
    <div class="compute">
      <Policies />
      <BackendServiceList />
      <InstanceList />
      <GroupList />
      <Templates />
      <Operations />
    </div>
  );
}

function Policies() {
  const { items, problem } = useComputeList<PolicySummary>('policies', 'policies');
  return (
    <section aria-labelledby="policies-title" class="card">
      <h2 id="policies-title">Security policies</h2>
      <Problem text={problem} />
      {items?.length === 0 && <p class="empty">No security policies.</p>}
      <ul class="plain">
        {items?.map((policy) => (
          <li key={policy.key}>
            <a href={href('compute', 'policy', policy.key)} data-policy={policy.key}>
              {policy.name}
            </a>{' '}
            <span class="muted">
              {policy.project} · {policy.location} · {policy.type} · {policy.rules} rule{policy.rules === 1 ? '' : 's'}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Templates() {
  const { items, problem } = useComputeList<Template>('templates', 'templates');
  return (
    <section aria-labelledby="templates-title" class="card">
      <h2 id="templates-title">Instance templates</h2>
      <Problem text={problem} />
      {items?.length === 0 && <p class="empty">No instance templates.</p>}
      <ul class="plain">
        {items?.map((template) => (
          <li key={template.key} data-template={template.key}>
            <strong>{template.name}</strong>{' '}
            <span class="muted">
              {template.project} · {template.machineType} · {new Date(template.created).toLocaleString()}
            </span>
            {template.description !== '' && <div class="muted">{template.description}</div>}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Operations() {
  const { items, problem } = useComputeList<Operation>('operations', 'operations');
  return (
    <section aria-labelledby="operations-title" class="card wide">
      <h2 id="operations-title">Operations</h2>
      <Problem text={problem} />
      {items?.length === 0 && <p class="empty">No Operations.</p>}
      {items !== undefined && items.length > 0 && (
        <div class="table-scroll">
          <table class="journal">
            <caption class="visually-hidden">Operations, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Type</th>
                <th scope="col">Target</th>
                <th scope="col">Status</th>
                <th scope="col">User</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {items.map((op) => (
                <tr key={op.name} data-operation={op.name} class={op.errors.length > 0 ? 'failed' : ''}>
                  <td>
                    <time dateTime={new Date(op.insertTime).toISOString()}>{new Date(op.insertTime).toLocaleTimeString()}</time>
                  </td>
                  <td>{op.operationType}</td>
                  <td>{op.targetPath}</td>
                  <td class="status">{op.status}</td>
                  <td>{op.user}</td>
                  <td>{op.errors.map((error) => `${error.code}: ${error.message}`).join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** show writes a JSON value compactly for a diff line. */
function show(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

function PolicyView({ policyKey }: { policyKey: string }) {
  const [policy, setPolicy] = useState<PolicyDetail | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const load = (): void => {
    call<PolicyDetail>('GET', path('compute', 'policies', policyKey)).then(
      (answer) => {
        setPolicy(answer);
        setProblem('');
      },
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(load, [policyKey]);
  useLiveRefresh(isCompute, load);
  return (
    <div class="compute">
      <section class="card wide" aria-labelledby="policy-title">
        <a href={href('compute')}>← Compute</a>
        <h1 id="policy-title">{policy?.name ?? policyKey}</h1>
        <Problem text={problem} />
        {policy !== undefined && (
          <>
            <p class="muted">
              {policy.project} · {policy.location} · {policy.type}
              {policy.description === '' ? '' : ` · ${policy.description}`}
            </p>
            <div class="table-scroll">
              <table class="journal rules-table">
                <caption>Rules, in priority order</caption>
                <thead>
                  <tr>
                    <th scope="col">Priority</th>
                    <th scope="col">Action</th>
                    <th scope="col">Preview</th>
                    <th scope="col">Match</th>
                    <th scope="col">Rate limit / redirect</th>
                    <th scope="col">Description</th>
                  </tr>
                </thead>
                <tbody>
                  {policy.rules.map((rule) => (
                    <tr key={String(rule['priority'])} data-priority={String(rule['priority'])}>
                      <td class="number">{String(rule['priority'])}</td>
                      <td class="action">{String(rule['action'] ?? '')}</td>
                      <td>{rule['preview'] === true ? 'yes' : ''}</td>
                      <td>
                        <code>{show(rule['match'])}</code>
                      </td>
                      <td>
                        <code>{show(rule['rateLimitOptions'] ?? rule['redirectOptions'])}</code>
                      </td>
                      <td>{String(rule['description'] ?? '')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
      {policy !== undefined && (
        <section class="card wide" aria-labelledby="used-by-title">
          <h2 id="used-by-title">Backend services using it</h2>
          {policy.usedBy.length === 0 && <p class="empty">No backend service attaches this policy.</p>}
          <ul class="plain">
            {policy.usedBy.map((service) => (
              <li key={service.key} data-used-by={service.key}>
                <a href={href('compute', 'backend', service.key)}>{service.name}</a>{' '}
                <span class="muted">
                  {service.project} · {service.location} · {service.securityPolicy?.key === policy.key ? 'backend policy' : 'edge policy'}
                  {service.securityPolicy?.key === policy.key && service.edgeSecurityPolicy?.key === policy.key ? ' and edge policy' : ''}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {policy !== undefined && (
        <section class="card wide" aria-labelledby="history-title">
          <h2 id="history-title">History</h2>
          <ol class="history">
            {policy.history.map((change) => (
              <li key={change.revision} data-method={change.method}>
                <p>
                  <strong>{change.method}</strong>
                  {change.priority === undefined ? '' : ` (priority ${change.priority})`} <span class="muted">by {change.user} at </span>
                  <time dateTime={new Date(change.time).toISOString()}>{new Date(change.time).toLocaleString()}</time>
                </p>
                <ul class="diff" aria-label={`Changes made by ${change.method}`}>
                  {change.diff.map((line, index) => (
                    <li key={index} class={`diff-${line.op === '+' ? 'add' : line.op === '-' ? 'remove' : 'change'}`}>
                      <code>
                        {line.op} {line.path}
                        {line.op === '~' ? `: ${show(line.before)} → ${show(line.after)}` : `: ${show(line.op === '+' ? line.after : line.before)}`}
                      </code>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
