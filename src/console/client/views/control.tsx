/** The control view: fault rules (add, remove), the clock, snapshot download and restore, reset. */
import { useEffect, useState } from 'preact/hooks';
import { BASE, call, path } from '../api.ts';

interface ClockState {
  readonly now: string;
  readonly frozen: boolean;
}

/** ControlView drives the server's test controls. */
export function ControlView() {
  return (
    <div class="control">
      <Faults />
      <Clock />
      <State />
    </div>
  );
}

function Faults() {
  const [rules, setRules] = useState<readonly Record<string, unknown>[]>([]);
  const [text, setText] = useState('{"family":"mail","status":503,"times":1}');
  const [problem, setProblem] = useState('');
  const load = (): void => {
    call<{ faults: Record<string, unknown>[] }>('GET', '/faults').then(
      (answer) => setRules(answer.faults),
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(load, []);
  const add = async (event: Event): Promise<void> => {
    event.preventDefault();
    let rule: unknown;
    try {
      rule = JSON.parse(text);
    } catch {
      setProblem('The rule is not valid JSON.');
      return;
    }
    try {
      await call('POST', '/faults', rule);
      setProblem('');
      load();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const remove = async (id: string): Promise<void> => {
    await call('DELETE', path('faults', id)).catch((error: Error) => setProblem(error.message));
    load();
  };
  return (
    <section aria-labelledby="faults-title" class="card">
      <h2 id="faults-title">Fault rules</h2>
      <form onSubmit={add}>
        <label for="fault-rule">Rule (JSON, as POST /_fogbank/faults takes it)</label>
        <textarea id="fault-rule" rows={3} value={text} onInput={(event) => setText((event.target as HTMLTextAreaElement).value)} />
        <button type="submit">Add rule</button>
      </form>
      {problem !== '' && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {rules.length === 0 ? (
        <p class="empty">No fault rules.</p>
      ) : (
        <ul class="rules">
          {rules.map((rule) => (
            <li key={String(rule['id'])} data-fault-id={String(rule['id'])}>
              <code>{JSON.stringify(rule)}</code>
              <button type="button" onClick={() => remove(String(rule['id']))} aria-label={`Remove rule ${String(rule['id'])}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Clock() {
  const [clock, setClock] = useState<ClockState | undefined>(undefined);
  const [advance, setAdvance] = useState('1h');
  const [problem, setProblem] = useState('');
  const change = (body: unknown): void => {
    call<ClockState>(body === undefined ? 'GET' : 'POST', '/clock', body).then(
      (answer) => {
        setClock(answer);
        setProblem('');
      },
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(() => change(undefined), []);
  return (
    <section aria-labelledby="clock-title" class="card">
      <h2 id="clock-title">Clock</h2>
      <p>
        <output aria-label="Server time">{clock?.now ?? '…'}</output> {clock?.frozen === true ? '(frozen)' : '(running)'}
      </p>
      <div class="row">
        <button type="button" onClick={() => change({ freeze: clock?.frozen !== true })}>
          {clock?.frozen === true ? 'Unfreeze' : 'Freeze'}
        </button>
        <label>
          Advance by <input size={6} value={advance} onInput={(event) => setAdvance((event.target as HTMLInputElement).value)} />
        </label>
        <button type="button" onClick={() => change({ advance })}>
          Advance
        </button>
        <button type="button" onClick={() => change(undefined)}>
          Refresh
        </button>
      </div>
      {problem !== '' && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

function State() {
  const [message, setMessage] = useState('');
  const restore = async (event: Event): Promise<void> => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file === undefined) return;
    try {
      await call('PUT', '/snapshot', file, 'application/gzip');
      setMessage(`Restored ${file.name}.`);
    } catch (error) {
      setMessage((error as Error).message);
    }
  };
  const reset = async (): Promise<void> => {
    if (!confirm('Reset empties every family, as a fresh server starts. Reset?')) return;
    try {
      const answer = await call<{ revision: number }>('POST', '/reset');
      setMessage(`Reset: the store is at revision ${answer.revision}.`);
    } catch (error) {
      setMessage((error as Error).message);
    }
  };
  return (
    <section aria-labelledby="state-title" class="card">
      <h2 id="state-title">State</h2>
      <div class="row">
        <a href={`${BASE}/snapshot`} download="fogbank-snapshot.gz">
          Download snapshot
        </a>
        <label>
          Restore a snapshot <input type="file" accept=".gz,application/gzip" onChange={restore} />
        </label>
        <button type="button" class="danger" onClick={reset}>
          Reset…
        </button>
      </div>
      {message !== '' && <p role="status">{message}</p>}
    </section>
  );
}
