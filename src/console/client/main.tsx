/** The console page: sign-in, then the views under a navigation bar, all from one live stream. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Session, setSession } from './api.ts';
import { onStatus, startLive, stopLive } from './live.ts';
import { href, useRoute } from './route.ts';
import { ActivityView } from './views/activity.tsx';
import { ClusterView } from './views/cluster.tsx';
import { ComputeView } from './views/compute.tsx';
import { ControlView } from './views/control.tsx';
import { MailView } from './views/mail.tsx';
import { PublisherView } from './views/publisher.tsx';
import { SignIn } from './views/sign-in.tsx';
import './styles.css';

function App() {
  const [session, setState] = useState<Session | null | undefined>(undefined);
  const [live, setLive] = useState(false);
  const route = useRoute();
  const signedIn = (next: Session | null): void => {
    setSession(next ?? undefined);
    setState(next);
    if (next === null) stopLive();
    else startLive();
  };
  useEffect(() => {
    call<Session & { signedIn: boolean }>('GET', '/session').then(
      (answer) => signedIn(answer.signedIn ? answer : null),
      () => signedIn(null),
    );
    return onStatus(setLive);
  }, []);
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  const view = route[0] ?? 'mail';
  const signOut = async (): Promise<void> => {
    await call('DELETE', '/session').catch(() => undefined);
    signedIn(null);
  };
  return (
    <div class="app">
      <header class="bar">
        <span class="brand">fogbank</span>
        <nav aria-label="Views">
          <a href={href('mail')} aria-current={view === 'mail' ? 'page' : undefined}>
            Mail
          </a>
          <a href={href('compute')} aria-current={view === 'compute' ? 'page' : undefined}>
            Compute
          </a>
          <a href={href('cluster')} aria-current={view === 'cluster' ? 'page' : undefined}>
            Cluster
          </a>
          <a href={href('publisher')} aria-current={view === 'publisher' ? 'page' : undefined}>
            Publisher
          </a>
          {session.admin && (
            <a href={href('activity')} aria-current={view === 'activity' ? 'page' : undefined}>
              Activity
            </a>
          )}
          {session.admin && (
            <a href={href('control')} aria-current={view === 'control' ? 'page' : undefined}>
              Control
            </a>
          )}
        </nav>
        <span class="who">
          <span
            class={live ? 'dot on' : 'dot'}
            role="status"
            aria-label={live ? 'Live updates on' : 'Live updates reconnecting'}
            data-live={live ? 'on' : 'off'}
          />
          <span class="principal">{session.principal}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main>
        {view === 'activity' && session.admin ? (
          <ActivityView />
        ) : view === 'control' && session.admin ? (
          <ControlView />
        ) : view === 'cluster' ? (
          <ClusterView route={route} session={session} />
        ) : view === 'publisher' ? (
          <PublisherView />
        ) : view === 'compute' ? (
          <ComputeView route={route} />
        ) : (
          <MailView route={route} session={session} />
        )}
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
