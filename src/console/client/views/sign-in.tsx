/** The sign-in form: a token this server issued (the admin token, or one from the tokens file). */
import { useState } from 'preact/hooks';
import { call, type Session } from '../api.ts';

/** SignIn asks for a token once; the session cookie remembers it. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState('');
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      onSignedIn(await call<Session>('POST', '/session', { token }));
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  return (
    <main class="sign-in">
      <h1>fogbank console</h1>
      <p>Open the sign-in link fogbank printed at start, or sign in with a token.</p>
      <form onSubmit={submit}>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" value={token} onInput={(event) => setToken((event.target as HTMLInputElement).value)} />
        <button type="submit">Sign in</button>
      </form>
      {problem !== '' && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
    </main>
  );
}
