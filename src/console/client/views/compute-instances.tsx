/** The VM instances views: every project's instances (zone, status, machine type, addresses, template, labels), and one instance with its lifecycle actions. */
import { path } from '../api.ts';
import { href } from '../route.ts';
import type { InstanceDetail, InstanceSummary } from '../../../services/compute/public-read-models.ts';
import { ActionResult, Facts, Labels, lastSegment, Problem, useAction, useComputeItem, useComputeList } from './compute-shared.tsx';

/** groupKeyOf is the key of the group whose path made an instance (`projects/p/zones/z/instanceGroupManagers/g` → `p/zones/z/g`). */
export function groupKeyOf(groupPath: string): string | undefined {
  const match = /^projects\/([^/]+)\/((?:zones|regions)\/[^/]+)\/instanceGroupManagers\/([^/]+)$/.exec(groupPath);
  return match === null ? undefined : `${match[1]}/${match[2]}/${match[3]}`;
}

/** InstanceList is the instances card of `#/compute`. */
export function InstanceList() {
  const { items, problem } = useComputeList<InstanceSummary>('instances', 'instances');
  return (
    <section aria-labelledby="instances-title" class="card wide">
      <h2 id="instances-title">VM instances</h2>
      <Problem text={problem} />
      {items?.length === 0 && <p class="empty">No VM instances.</p>}
      {items !== undefined && items.length > 0 && (
        <div class="table-scroll">
          <table class="journal instances-table">
            <caption class="visually-hidden">VM instances by project, zone and name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Project</th>
                <th scope="col">Zone</th>
                <th scope="col">Status</th>
                <th scope="col">Machine type</th>
                <th scope="col">Internal IP</th>
                <th scope="col">External IP</th>
                <th scope="col">Template</th>
                <th scope="col">Labels</th>
              </tr>
            </thead>
            <tbody>
              {items.map((instance) => (
                <tr key={instance.key} data-instance={instance.key}>
                  <td>
                    <a href={href('compute', 'instance', instance.key)}>{instance.name}</a>
                  </td>
                  <td>{instance.project}</td>
                  <td>{instance.zone}</td>
                  <td class="status">{instance.status}</td>
                  <td>{instance.machineType}</td>
                  <td>{instance.internalIp}</td>
                  <td>{instance.externalIp}</td>
                  <td>{instance.sourceTemplate === '' ? '' : lastSegment(instance.sourceTemplate)}</td>
                  <td>
                    <Labels labels={instance.labels} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** LIFECYCLE are the lifecycle buttons (method, label); which one an instance's status allows is the API's to say, as it does to any client. */
const LIFECYCLE: readonly (readonly [string, string])[] = [
  ['start', 'Start'],
  ['stop', 'Stop'],
  ['reset', 'Reset'],
  ['suspend', 'Suspend'],
  ['resume', 'Resume'],
];

/** InstanceView is `#/compute/instance/<key>`. */
export function InstanceView({ instanceKey }: { instanceKey: string }) {
  const { item: instance, problem, gone } = useComputeItem<InstanceDetail>(path('compute', 'instances', instanceKey));
  const action = useAction();
  const group = instance === undefined ? undefined : groupKeyOf(instance.createdBy);
  const remove = async (): Promise<void> => {
    if (!confirm(`Delete the instance ${instance?.name ?? instanceKey}?`)) return;
    if (await action.run('DELETE', path('compute', 'instances', instanceKey))) location.hash = href('compute');
  };
  return (
    <div class="compute">
      <section class="card wide" aria-labelledby="instance-title">
        <a href={href('compute')}>← Compute</a>
        <h1 id="instance-title">{instance?.name ?? instanceKey}</h1>
        <Problem text={gone ? `The instance ${instanceKey} does not exist (any more).` : problem} />
        {instance !== undefined && (
          <>
            <Facts
              label="Instance"
              facts={[
                ['Project', instance.project],
                ['Zone', instance.zone],
                ['Status', <span class="status">{instance.status}</span>],
                ['Machine type', instance.machineType],
                ['Internal IP', instance.internalIp],
                ['External IP', instance.externalIp],
                ['Template', instance.sourceTemplate],
                ['Managed by', group === undefined ? instance.createdBy : <a href={href('compute', 'group', group)}>{lastSegment(instance.createdBy)}</a>],
                ['Labels', <Labels labels={instance.labels} />],
                ['Created', new Date(instance.created).toLocaleString()],
                ['Last started', instance.lastStartTime === undefined ? '' : new Date(instance.lastStartTime).toLocaleString()],
                ['Last stopped', instance.lastStopTime === undefined ? '' : new Date(instance.lastStopTime).toLocaleString()],
              ]}
            />
            <fieldset class="row">
              <legend class="visually-hidden">Instance actions</legend>
              {LIFECYCLE.map(([method, label]) => (
                <button
                  key={method}
                  type="button"
                  disabled={action.busy}
                  data-action={method}
                  onClick={() => void action.run('POST', `${path('compute', 'instances', instanceKey)}/${method}`)}
                >
                  {label}
                </button>
              ))}
              <button type="button" class="danger" disabled={action.busy} data-action="delete" onClick={remove}>
                Delete…
              </button>
            </fieldset>
            <ActionResult action={action} />
          </>
        )}
      </section>
      {instance !== undefined && (
        <section class="card wide" aria-labelledby="instance-properties-title">
          <h2 id="instance-properties-title">Properties</h2>
          <pre class="yaml">{JSON.stringify(instance.properties, null, 2)}</pre>
        </section>
      )}
    </div>
  );
}
