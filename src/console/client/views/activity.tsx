/** The activity view: the request journal, newest first, live; requests a fault fired on are marked. */
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { type JournalEntry, onLive } from '../live.ts';

/** JOURNAL_ROWS is how many requests the view keeps. */
const JOURNAL_ROWS = 300;

/** ActivityView lists answered requests as they happen. */
export function ActivityView() {
  const [entries, setEntries] = useState<readonly JournalEntry[]>([]);
  const [family, setFamily] = useState('');
  const [problem, setProblem] = useState('');
  const load = (): void => {
    call<{ requests: JournalEntry[] }>('GET', `/requests?limit=${JOURNAL_ROWS}`).then(
      (answer) => setEntries(answer.requests),
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(() => {
    load();
    return onLive((event) => {
      if (event.type === 'request') setEntries((current) => [event.entry, ...current].slice(0, JOURNAL_ROWS));
      else if (event.type === 'reload') load();
    });
  }, []);
  const shown = family === '' ? entries : entries.filter((entry) => entry.family === family);
  return (
    <section class="activity" aria-labelledby="activity-title">
      <h1 id="activity-title">Requests</h1>
      <label>
        Family{' '}
        <select value={family} onChange={(event) => setFamily((event.target as HTMLSelectElement).value)}>
          <option value="">all</option>
          {['compute', 'cluster', 'mail', 'publisher', 'discovery'].map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {problem !== '' && <p role="alert">{problem}</p>}
      <div class="table-scroll">
        <table class="journal">
          <caption class="visually-hidden">Answered requests, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Family</th>
              <th scope="col">Method</th>
              <th scope="col">Principal</th>
              <th scope="col">Status</th>
              <th scope="col">ms</th>
              <th scope="col">Fault</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((entry, index) => (
              <tr key={`${entry.time}-${index}`} class={entry.fault !== null ? 'faulted' : entry.status >= 400 ? 'failed' : ''} data-method={entry.method}>
                <td>
                  <time dateTime={entry.time}>{entry.time.slice(11, 23)}</time>
                </td>
                <td>{entry.family}</td>
                <td title={`${entry.httpMethod} ${entry.path}`}>{entry.method}</td>
                <td>{entry.principal ?? '—'}</td>
                <td class="status">{entry.status}</td>
                <td class="number">{entry.latencyMs.toFixed(1)}</td>
                <td>{entry.fault === null ? '' : <span class="fault-mark">⚡ {JSON.stringify(entry.fault)}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
