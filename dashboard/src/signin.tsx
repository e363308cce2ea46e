/**
 * The member sign-in form: "Email", "Password" and "Authentication code". The code field is
 * always shown, optional: the server answers a missing code exactly as a wrong password (it
 * never tells who has an authenticator), so the form cannot know when one is needed.
 */
import { useState } from 'preact/hooks';
import { RouteFailure, signIn, type SignedInAnswer } from './session';

export function SignIn({ message, onSignedIn }: { message: string | null; onSignedIn: (answer: SignedInAnswer) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!email.trim() || !password) return setError('Enter your email and password.');
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(email.trim(), password, code.replace(/\s/g, '')));
    } catch (err) {
      const f = err as RouteFailure;
      setError(f.status === 401 ? `${f.message} If you set up an authenticator app, enter its current code (or a recovery code).` : f.message);
      setPassword('');
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>Merchant dashboard</h1>
      {message && (
        <p class="notice" role="alert" data-testid="signed-out-reason">
          {message}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} data-testid="signin">
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          spellcheck={false}
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <label for="code">Authentication code</label>
        <input
          id="code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          spellcheck={false}
          aria-describedby="code-hint"
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
        <p id="code-hint" class="muted">
          Only if you set up an authenticator app: its 6-digit code, or one of your recovery codes.
        </p>
        {error && (
          <p class="error" role="alert" data-testid="signin-error">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted">
          No account yet? An owner or admin of your merchant invites you and gives you a one-time setup link. The first owner gets one from{' '}
          <code>npm run cli -- users create</code>.
        </p>
      </form>
    </main>
  );
}
