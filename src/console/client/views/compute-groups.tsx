/**
 * The managed instance groups views: every group, zonal and regional, and one group with its
 * target size, template, update policy and its instances (what the group is doing to each and
 * the instance's status, live as the group's Operation creates or deletes them); resize and delete.
 */
import { useState } from 'preact/hooks';
import { path } from '../api.ts';
import { href } from '../route.ts';
import type { ManagedGroupDetail, ManagedGroupSummary } from '../../../services/compute/public-read-models.ts';
import { ActionResult, Facts, lastSegment, Problem, useAction, useComputeItem, useComputeList } from './compute-shared.tsx';

/** GroupList is the managed instance groups card of `#/compute`. */
export function GroupList() {
  const { items, problem } = useComputeList<ManagedGroupSummary>('groups', 'groups');
  return (
    <section aria-labelledby="groups-title" class="card">
      <h2 id="groups-title">Managed instance groups</h2>
      <Problem text={problem} />
      {items?.length === 0 && <p class="empty">No managed instance groups.</p>}
      <ul class="plain">
        {items?.map((group) => (
          <li key={group.key} data-group={group.key}>
            <a href={href('compute', 'group', group.key)}>{group.name}</a>{' '}
            <span class="muted">
              {group.project} · {group.location} · {group.instances} of {group.targetSize} instance{group.targetSize === 1 ? '' : 's'} ·{' '}
              {lastSegment(group.instanceTemplate)} · {group.isStable ? 'stable' : 'changing'}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** UPDATE_POLICY_FIELDS are the update policy's members in the order the group's page says them, with their words. */
const UPDATE_POLICY_FIELDS: readonly (readonly [string, string])[] = [
  ['type', 'type'],
  ['minimalAction', 'minimal action'],
  ['mostDisruptiveAllowedAction', 'most disruptive action'],
  ['maxSurge', 'max surge'],
  ['maxUnavailable', 'max unavailable'],
  ['replacementMethod', 'replacement'],
  ['instanceRedistributionType', 'redistribution'],
];

/**
 * updatePolicyText says a group's update policy in words: `type OPPORTUNISTIC · max surge 1 ·
 * max unavailable 10%`; a fixed-or-percent value as its fixed number or its percent (the API
 * writes `calculated` beside either), a member the page does not know by its own name.
 */
function updatePolicyText(policy: Readonly<Record<string, unknown>>): string {
  const known = new Set(UPDATE_POLICY_FIELDS.map(([field]) => field));
  const words = (value: unknown): string => {
    if (typeof value !== 'object' || value === null) return String(value);
    const { fixed, percent } = value as { fixed?: unknown; percent?: unknown };
    if (percent !== undefined) return `${String(percent)}%`;
    if (fixed !== undefined) return String(fixed);
    return JSON.stringify(value);
  };
  const parts = [
    ...UPDATE_POLICY_FIELDS.filter(([field]) => policy[field] !== undefined).map(([field, label]) => `${label} ${words(policy[field])}`),
    ...Object.entries(policy)
      .filter(([field, value]) => !known.has(field) && value !== undefined)
      .map(([field, value]) => `${field} ${words(value)}`),
  ];
  return parts.length === 0 ? '—' : parts.join(' · ');
}

/** GroupView is `#/compute/group/<key>`. */
export function GroupView({ groupKey }: { groupKey: string }) {
  const { item: group, problem, gone } = useComputeItem<ManagedGroupDetail>(path('compute', 'groups', groupKey));
  const action = useAction();
  const [size, setSize] = useState('');
  const resize = (event: Event): void => {
    event.preventDefault();
    const wanted = Number(size);
    if (size.trim() === '' || !Number.isSafeInteger(wanted)) {
      void action.run('POST', `${path('compute', 'groups', groupKey)}/resize`, { size: size.trim() });
      return;
    }
    void action.run('POST', `${path('compute', 'groups', groupKey)}/resize`, { size: wanted }).then((done) => done && setSize(''));
  };
  const remove = async (): Promise<void> => {
    if (!confirm(`Delete the group ${group?.name ?? groupKey} and its instances?`)) return;
    if (await action.run('DELETE', path('compute', 'groups', groupKey))) location.hash = href('compute');
  };
  return (
    <div class="compute">
      <section class="card wide" aria-labelledby="group-title">
        <a href={href('compute')}>← Compute</a>
        <h1 id="group-title">{group?.name ?? groupKey}</h1>
        <Problem text={gone ? `The managed instance group ${groupKey} does not exist (any more).` : problem} />
        {group !== undefined && (
          <>
            <Facts
              label="Managed instance group"
              facts={[
                ['Project', group.project],
                [group.locationKind === 'region' ? 'Region' : 'Zone', group.location],
                ['Target size', <span data-target-size>{group.targetSize}</span>],
                ['Instances', group.instances],
                ['Status', group.isStable ? 'stable' : 'changing'],
                ['Template', group.instanceTemplate],
                [
                  'Versions',
                  group.versions
                    .map((version) => `${version.name ?? ''}${version.name === undefined ? '' : ': '}${lastSegment(version.instanceTemplate)}`)
                    .join(', '),
                ],
                ['Base instance name', group.baseInstanceName],
                ['Update policy', <span data-update-policy>{updatePolicyText(group.updatePolicy)}</span>],
                ['Description', group.description],
              ]}
            />
            <form class="row" onSubmit={resize} aria-label="Resize">
              <label>
                New target size{' '}
                <input name="size" inputMode="numeric" size={6} value={size} onInput={(event) => setSize((event.target as HTMLInputElement).value)} />
              </label>
              <button type="submit" disabled={action.busy}>
                Resize
              </button>
              <button type="button" class="danger" disabled={action.busy} data-action="delete" onClick={remove}>
                Delete…
              </button>
            </form>
            <ActionResult action={action} />
          </>
        )}
      </section>
      {group !== undefined && (
        <section class="card wide" aria-labelledby="managed-title">
          <h2 id="managed-title">Managed instances</h2>
          {group.managedInstances.length === 0 && <p class="empty">No instances.</p>}
          {group.managedInstances.length > 0 && (
            <div class="table-scroll">
              <table class="journal managed-table">
                <caption class="visually-hidden">The group's instances</caption>
                <thead>
                  <tr>
                    <th scope="col">Instance</th>
                    <th scope="col">Zone</th>
                    <th scope="col">Current action</th>
                    <th scope="col">Status</th>
                    <th scope="col">Template</th>
                  </tr>
                </thead>
                <tbody>
                  {group.managedInstances.map((member) => (
                    <tr key={member.path} data-managed={member.name}>
                      <td>{member.status === undefined ? member.name : <a href={href('compute', 'instance', member.key)}>{member.name}</a>}</td>
                      <td>{member.zone}</td>
                      <td class="action">{member.currentAction}</td>
                      <td class="status">{member.status ?? ''}</td>
                      <td>{lastSegment(member.template)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </div>
  );
}
