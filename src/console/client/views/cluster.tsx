/**
 * The cluster views, generic over what discovery lists: group → kind → namespace → object (YAML,
 * managedFields folded), Events live with filters, and RBAC both ways (who may do a verb on a
 * resource, what a subject may do), with the bindings and roles that grant it. A non-admin sees
 * the kinds and namespaces the cluster's RBAC lets it list, and may ask only what it may do itself.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Session } from '../api.ts';
import { href, type Route } from '../route.ts';
import { useLiveRefresh } from './use-live.ts';

interface Kind {
  readonly group: string;
  readonly version: string;
  readonly versions: readonly string[];
  readonly resource: string;
  readonly kind: string;
  readonly shortNames: readonly string[];
  /** Its subresources (`status`, `scale`): part of its page, not kinds of their own. */
  readonly subresources: readonly string[];
  readonly namespaced: boolean;
  /** Where the signed-in principal may list it: null everywhere, else these namespaces. */
  readonly namespaces: readonly string[] | null;
}

interface ObjectRow {
  readonly name: string;
  readonly namespace: string | null;
  readonly created: string | null;
}

interface EventRow {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly regarding: string;
  readonly count: number;
  readonly time: string;
  readonly revision: number;
}

interface SubjectRef {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** ANY is the URL segment for the core group or all namespaces. */
const ANY = '-';
const isCluster = (event: { type: string; kind?: string }): boolean => event.type === 'change' && (event.kind ?? '').startsWith('cluster/');

/** query builds a query string from non-empty values. */
function query(values: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== '') params.set(name, value);
  return params.toString();
}

/** useLoad loads a JSON answer for a path, again when the path changes and on cluster changes. */
function useLoad<T>(path: string | undefined): { data: T | undefined; problem: string } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const load = (): void => {
    if (path === undefined) return;
    call<T>('GET', path).then(
      (answer) => {
        setData(answer);
        setProblem('');
      },
      (error: Error) => {
        // What the previous path showed must not stay beside this one's refusal.
        setData(undefined);
        setProblem(error.message);
      },
    );
  };
  useEffect(load, [path]);
  useLiveRefresh(isCluster, load);
  return { data, problem };
}

function Problem({ text }: { text: string }) {
  return text === '' ? null : (
    <p class="problem" role="alert">
      {text}
    </p>
  );
}

/** matches says whether a kind answers a filter: a word of its kind, plural, short names or group, any case. */
function matches(kind: Kind, filter: string): boolean {
  const words = filter
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  const text = [kind.kind, kind.resource, ...kind.shortNames, kind.group === '' ? 'core' : kind.group].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
}

/** ClusterView is `#/cluster/…`. */
export function ClusterView({ route, session }: { route: Route; session: Session }) {
  const { data } = useLoad<{ kinds: Kind[] }>('/cluster/kinds');
  const [filter, setFilter] = useState('');
  const section = route[1] ?? 'events';
  const selected = section === 'kind' || section === 'object' ? `${route[2] === ANY ? '' : (route[2] ?? '')}/${route[3] ?? ''}` : undefined;
  const shown = (data?.kinds ?? []).filter((kind) => matches(kind, filter));
  const groups = new Map<string, Kind[]>();
  for (const kind of shown) groups.set(kind.group, [...(groups.get(kind.group) ?? []), kind]);
  // A deep link to a kind far down the list: the sidebar (not the page) scrolls its entry into view.
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    const list = nav.current;
    const entry = list?.querySelector<HTMLElement>('[aria-current="page"][data-kind]');
    if (list === null || list === undefined || entry === null || entry === undefined) return;
    const top = entry.getBoundingClientRect().top - list.getBoundingClientRect().top;
    if (top < 0 || top + entry.offsetHeight > list.clientHeight) list.scrollTop += top - list.clientHeight / 3;
  }, [selected, data]);
  return (
    <div class="cluster">
      <nav class="kinds" aria-label="Cluster" ref={nav}>
        <ul class="plain">
          <li>
            <a href={href('cluster', 'events')} aria-current={section === 'events' ? 'page' : undefined}>
              Events
            </a>
          </li>
          <li>
            <a href={href('cluster', 'rbac')} aria-current={section === 'rbac' ? 'page' : undefined}>
              {session.admin ? 'Who can…' : 'What may I do?'}
            </a>
          </li>
        </ul>
        <form
          class="kind-filter"
          onSubmit={(event) => {
            // Enter opens the first kind that matches.
            event.preventDefault();
            const first = shown[0];
            if (first !== undefined) location.hash = href('cluster', 'kind', first.group || ANY, first.resource);
          }}
        >
          <label for="kind-filter" class="visually-hidden">
            Filter kinds
          </label>
          <input
            id="kind-filter"
            type="search"
            placeholder={`Filter ${data?.kinds.length ?? ''} kinds`}
            autocomplete="off"
            value={filter}
            onInput={(event) => setFilter((event.target as HTMLInputElement).value)}
            data-kind-filter=""
          />
        </form>
        {data !== undefined && shown.length === 0 && <p class="empty">No kind matches.</p>}
        {[...groups].map(([group, kinds]) => (
          <section key={group} aria-label={`Group ${group === '' ? 'core' : group}`}>
            <h2>{group === '' ? 'core' : group}</h2>
            <ul class="plain">
              {kinds.map((kind) => (
                <li key={`${kind.group}/${kind.resource}`}>
                  <a
                    href={href('cluster', 'kind', kind.group || ANY, kind.resource)}
                    aria-current={selected === `${kind.group}/${kind.resource}` ? 'page' : undefined}
                    data-kind={`${kind.group}/${kind.resource}`}
                  >
                    {kind.kind} <span class="muted">{kind.version}</span>
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </nav>
      <div class="cluster-main">
        {section === 'rbac' ? (
          <Rbac session={session} />
        ) : section === 'kind' && route[3] !== undefined ? (
          <Objects
            group={route[2] === ANY ? '' : (route[2] ?? '')}
            resource={route[3]}
            namespace={route[4] === undefined || route[4] === ANY ? '' : route[4]}
            kinds={data?.kinds ?? []}
          />
        ) : section === 'object' && route[5] !== undefined ? (
          <ObjectYaml
            group={route[2] === ANY ? '' : (route[2] ?? '')}
            resource={route[3] ?? ''}
            namespace={route[4] === ANY ? '' : (route[4] ?? '')}
            name={route[5]}
          />
        ) : (
          <Events />
        )}
      </div>
    </div>
  );
}

function Objects({ group, resource, namespace, kinds }: { group: string; resource: string; namespace: string; kinds: readonly Kind[] }) {
  const kind = kinds.find((each) => each.group === group && each.resource === resource);
  const { data, problem } = useLoad<{ objects: ObjectRow[] }>(`/cluster/objects?${query({ group, resource, namespace })}`);
  // Where the principal may list only some namespaces, those are the choice (it may not list namespaces themselves).
  const listed = useLoad<{ objects: ObjectRow[] }>(
    kind?.namespaced === true && kind.namespaces === null ? '/cluster/objects?resource=namespaces' : undefined,
  ).data;
  const namespaces = kind?.namespaces ?? listed?.objects.map((each) => each.name) ?? [];
  // The page scrolled down (a long list before): the newly chosen kind's objects start in view.
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if ((title.current?.getBoundingClientRect().top ?? 0) < 0) title.current?.scrollIntoView({ block: 'start' });
  }, [group, resource]);
  return (
    <section aria-labelledby="objects-title">
      <h1 id="objects-title" ref={title}>
        {kind?.kind ?? resource}
      </h1>
      {kind !== undefined && (
        <p class="muted kind-facts" data-kind-facts="">
          {kind.group === '' ? kind.versions.join(', ') : kind.versions.map((version) => `${kind.group}/${version}`).join(', ')} · {kind.resource}
          {kind.shortNames.length > 0 && ` (${kind.shortNames.join(', ')})`} · {kind.namespaced ? 'namespaced' : 'cluster-scoped'}
          {kind.subresources.length > 0 && ` · subresources: ${kind.subresources.join(', ')}`}
        </p>
      )}
      {kind?.namespaced === true && (
        <label>
          Namespace{' '}
          <select
            value={namespace}
            onChange={(event) => {
              location.hash = href('cluster', 'kind', group || ANY, resource, (event.target as HTMLSelectElement).value || ANY);
            }}
          >
            <option value="">all</option>
            {namespaces.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        </label>
      )}
      <Problem text={problem} />
      {data?.objects.length === 0 && <p class="empty">None.</p>}
      <ul class="plain">
        {data?.objects.map((object) => (
          <li key={`${object.namespace ?? ''}/${object.name}`}>
            <a href={href('cluster', 'object', group || ANY, resource, object.namespace ?? ANY, object.name)} data-object={object.name}>
              {object.namespace === null ? '' : `${object.namespace}/`}
              {object.name}
            </a>{' '}
            <span class="muted">{object.created ?? ''}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ObjectYaml({ group, resource, namespace, name }: { group: string; resource: string; namespace: string; name: string }) {
  const { data, problem } = useLoad<{ yaml: string; managedFields: string | null }>(`/cluster/object?${query({ group, resource, namespace, name })}`);
  return (
    <section aria-labelledby="object-title">
      <a href={href('cluster', 'kind', group || ANY, resource)}>← {resource}</a>
      <h1 id="object-title">{name}</h1>
      <Problem text={problem} />
      {data !== undefined && (
        <>
          <section aria-label="Object YAML">
            <pre class="yaml">{data.yaml}</pre>
          </section>
          {data.managedFields !== null && (
            <details>
              <summary>managedFields</summary>
              <pre class="yaml">{data.managedFields}</pre>
            </details>
          )}
        </>
      )}
    </section>
  );
}

function Events() {
  const { data, problem } = useLoad<{ events: EventRow[] }>('/cluster/events');
  const [filter, setFilter] = useState({ namespace: '', type: '', reason: '', regarding: '' });
  const field = (name: keyof typeof filter, label: string) => (
    <label>
      {label}{' '}
      <input
        size={12}
        value={filter[name]}
        onInput={(event) => setFilter({ ...filter, [name]: (event.target as HTMLInputElement).value })}
        data-filter={name}
      />
    </label>
  );
  const shown = (data?.events ?? []).filter(
    (event) =>
      (filter.namespace === '' || event.namespace === filter.namespace) &&
      (filter.type === '' || event.type.toLowerCase() === filter.type.toLowerCase()) &&
      (filter.reason === '' || event.reason.toLowerCase().includes(filter.reason.toLowerCase())) &&
      (filter.regarding === '' || event.regarding.toLowerCase().includes(filter.regarding.toLowerCase())),
  );
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <div class="row filters">
        {field('namespace', 'Namespace')}
        {field('type', 'Type')}
        {field('reason', 'Reason')}
        {field('regarding', 'Regarding')}
      </div>
      <Problem text={problem} />
      {data !== undefined && shown.length === 0 && <p class="empty">No events{data.events.length === 0 ? '' : ' match'}.</p>}
      {shown.length > 0 && (
        <div class="table-scroll">
          <table class="journal">
            <caption class="visually-hidden">Events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Namespace</th>
                <th scope="col">Type</th>
                <th scope="col">Reason</th>
                <th scope="col">Regarding</th>
                <th scope="col">Message</th>
                <th scope="col">Count</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((event) => (
                <tr key={`${event.namespace}/${event.name}`} data-event={event.name}>
                  <td>{event.namespace}</td>
                  <td>{event.type}</td>
                  <td class="reason">{event.reason}</td>
                  <td>{event.regarding}</td>
                  <td class="message">{event.message}</td>
                  <td class="number">{event.count}</td>
                  <td>{event.time}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Rbac({ session }: { session: Session }) {
  const [ask, setAsk] = useState({ verb: 'get', resource: 'pods', group: '', namespace: '' });
  const [asked, setAsked] = useState<string | undefined>(undefined);
  const whoCan = useLoad<{ allowed: { subject: SubjectRef; reason: string }[] }>(asked);
  const [subject, setSubject] = useState({ kind: 'User', name: session.admin ? '' : session.principal, namespace: '' });
  // A non-admin is answered about itself at once (the server answers it about nobody else).
  const [subjectAsked, setSubjectAsked] = useState<string | undefined>(
    session.admin ? undefined : `/cluster/may-do?${query({ kind: 'User', name: session.principal })}`,
  );
  const mayDo = useLoad<{ everything: boolean; grants: { source: string; rules: Record<string, unknown>[] }[] }>(subjectAsked);
  const input = (name: keyof typeof ask, label: string) => (
    <label>
      {label} <input size={14} value={ask[name]} onInput={(event) => setAsk({ ...ask, [name]: (event.target as HTMLInputElement).value })} data-ask={name} />
    </label>
  );
  const describe = (each: SubjectRef): string => `${each.kind} ${each.namespace === undefined ? '' : `${each.namespace}/`}${each.name}`;
  return (
    <div class="rbac">
      {session.admin && (
        <section aria-labelledby="who-can-title" class="card">
          <h1 id="who-can-title">Who can…</h1>
          <form
            class="row"
            onSubmit={(event) => {
              event.preventDefault();
              setAsked(`/cluster/who-can?${query(ask)}`);
            }}
          >
            {input('verb', 'Verb')}
            {input('resource', 'Resource')}
            {input('group', 'API group')}
            {input('namespace', 'Namespace')}
            <button type="submit">Ask</button>
          </form>
          <Problem text={whoCan.problem} />
          {asked !== undefined && whoCan.data !== undefined && (
            <ul class="plain who-can">
              {whoCan.data.allowed.map((each) => (
                <li key={describe(each.subject)} data-subject={describe(each.subject)}>
                  <strong>{describe(each.subject)}</strong>
                  <div class="muted">{each.reason}</div>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <section aria-labelledby="may-do-title" class="card">
        <h2 id="may-do-title">{session.admin ? 'What may a subject do?' : 'What may I do?'}</h2>
        {session.admin && (
          <form
            class="row"
            onSubmit={(event) => {
              event.preventDefault();
              setSubjectAsked(`/cluster/may-do?${query(subject)}`);
            }}
          >
            <label>
              Kind{' '}
              <select value={subject.kind} onChange={(event) => setSubject({ ...subject, kind: (event.target as HTMLSelectElement).value })}>
                <option>User</option>
                <option>Group</option>
                <option>ServiceAccount</option>
              </select>
            </label>
            <label>
              Name <input size={18} value={subject.name} onInput={(event) => setSubject({ ...subject, name: (event.target as HTMLInputElement).value })} />
            </label>
            <label>
              Namespace{' '}
              <input size={12} value={subject.namespace} onInput={(event) => setSubject({ ...subject, namespace: (event.target as HTMLInputElement).value })} />
            </label>
            <button type="submit">Show</button>
          </form>
        )}
        <Problem text={mayDo.problem} />
        {subjectAsked !== undefined && mayDo.data !== undefined && (
          <div class="may-do">
            {mayDo.data.everything && <p>Member of system:masters: allowed everything.</p>}
            {!mayDo.data.everything && mayDo.data.grants.length === 0 && <p class="empty">Nothing: no binding names this subject.</p>}
            {mayDo.data.grants.map((grant) => (
              <div key={grant.source} class="grant">
                <p>{grant.source}</p>
                <ul class="plain">
                  {grant.rules.map((rule, index) => (
                    <li key={index}>
                      <code>{JSON.stringify(rule)}</code>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
        )}
      </section>
    </div>
  );
}
