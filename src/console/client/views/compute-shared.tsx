/**
 * What the compute views share: loading a list or one resource and refreshing it live (on any
 * compute change of the stream), the problem line, facts as a definition list, and actions (an
 * API method the console calls for the page, the Operation it started shown, the API's refusal
 * shown as its own message).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import type { LiveEvent } from '../live.ts';
import { useLiveRefresh } from './use-live.ts';

/** isCompute passes the compute family's changes. */
export const isCompute = (event: LiveEvent): boolean => event.type === 'change' && event.kind.startsWith('compute.');

/** useComputeList loads one list and refreshes it live. */
export function useComputeList<T>(what: string, field: string): { items: readonly T[] | undefined; problem: string } {
  const [items, setItems] = useState<readonly T[] | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const load = (): void => {
    call<Record<string, T[]>>('GET', `/compute/${what}`).then(
      (answer) => {
        setItems(answer[field] ?? []);
        setProblem('');
      },
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(load, []);
  useLiveRefresh(isCompute, load);
  return { items, problem };
}

/** useComputeItem loads one resource (`path` under the console's API) and refreshes it live; `gone` is set once it answers 404. */
export function useComputeItem<T>(path: string): { item: T | undefined; problem: string; gone: boolean } {
  const [item, setItem] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const [gone, setGone] = useState(false);
  const load = (): void => {
    call<T>('GET', path).then(
      (answer) => {
        setItem(answer);
        setProblem('');
        setGone(false);
      },
      (error: Error & { status?: number }) => {
        setProblem(error.message);
        setGone(error.status === 404);
      },
    );
  };
  useEffect(load, [path]);
  useLiveRefresh(isCompute, load);
  return { item, problem, gone };
}

/** Problem is an error line (an alert). */
export function Problem({ text }: { text: string }) {
  return text === '' ? null : (
    <p class="problem" role="alert">
      {text}
    </p>
  );
}

/** Facts is a definition list of a resource's fields. */
export function Facts({ label, facts }: { label: string; facts: readonly (readonly [string, ComponentChildren])[] }) {
  return (
    <dl class="envelope" aria-label={label}>
      {facts.map(([name, value]) => (
        <div key={name} class="fact" data-fact={name}>
          <dt>{name}</dt>
          <dd>{value === '' || value === undefined ? <span class="muted">—</span> : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** lastSegment is a resource path's last part (a template's or a zone's name). */
export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Labels shows a resource's labels. */
export function Labels({ labels }: { labels: Readonly<Record<string, string>> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return null;
  return (
    <span class="labels">
      {entries.map(([key, value]) => (
        <span key={key} class="label">
          {key}={value}
        </span>
      ))}
    </span>
  );
}

/** ApiOperation is the Operation an action started, as the API answered it. */
interface ApiOperation {
  readonly name?: string;
  readonly operationType?: string;
  readonly status?: string;
  readonly error?: { readonly errors?: readonly { readonly message?: string }[] };
}

/**
 * useAction runs console actions one at a time: `run(method, path, body)` calls the console's API,
 * `status` says which Operation it started (or its error, an Operation may end in one), `problem`
 * is the API's refusal.
 */
export function useAction(): {
  readonly run: (method: 'POST' | 'DELETE', path: string, body?: unknown) => Promise<boolean>;
  readonly busy: boolean;
  readonly status: string;
  readonly problem: string;
} {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState('');
  const run = async (method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<boolean> => {
    setBusy(true);
    setProblem('');
    setStatus('');
    try {
      const { operation } = await call<{ operation: ApiOperation }>(method, path, body);
      const failed = operation.error?.errors?.map((error) => error.message ?? '').join('; ') ?? '';
      if (failed !== '') setProblem(failed);
      else setStatus(`${operation.operationType ?? 'Operation'} ${operation.name ?? ''}: ${operation.status ?? ''}`);
      return failed === '';
    } catch (error) {
      setProblem((error as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, status, problem };
}

/** ActionResult shows what the last action started, or its problem. */
export function ActionResult({ action }: { action: ReturnType<typeof useAction> }) {
  return (
    <>
      <Problem text={action.problem} />
      {action.status !== '' && (
        <p role="status" class="note" data-action-status>
          {action.status}
        </p>
      )}
    </>
  );
}
