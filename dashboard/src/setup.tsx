/**
 * The setup page a setup link opens (`/dashboard/#setup=<token>`, printed by `cli users
 * create` and answered once by inviteMember): choose a password (one field, "Password", at
 * least 12 characters), which uses the link; the page then signs in with it and offers an
 * authenticator app (optional here; live mode needs one for owners, admins and finance).
 */
import { useState } from 'preact/hooks';
import { createApi, type Api } from './api';
import { completeSetup, MIN_PASSWORD, RouteFailure, signIn } from './session';
import { TotpSetup } from './totp';

export function Setup({ token, onDone }: { token: string; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [signed, setSigned] = useState<{ email: string; api: Api } | null>(null);
  const length = [...password].length;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (length < MIN_PASSWORD) return setError(`The password needs at least ${MIN_PASSWORD} characters.`);
    setBusy(true);
    setError(null);
    try {
      const { email } = await completeSetup(token, password);
      // The link is used: it leaves the address bar and the history entry.
      history.replaceState(null, '', `${location.pathname}#/`);
      await signIn(email, password, '');
      setSigned({ email, api: createApi(() => undefined) });
    } catch (err) {
      setError((err as RouteFailure).message);
    } finally {
      setBusy(false);
    }
  };

  if (signed)
    return (
      <main class="signin" id="main">
        <h1>Welcome</h1>
        <p role="status" data-testid="setup-done">
          Your password is set; you are signed in as <strong>{signed.email}</strong>.
        </p>
        <TotpSetup api={signed.api} onDone={onDone} doneLabel="Open the dashboard" />
      </main>
    );
  return (
    <main class="signin" id="main">
      <h1>Set up your account</h1>
      <form onSubmit={(e) => void submit(e)} data-testid="setup">
        <p>Choose the password you will sign in with. This link works once and for 72 hours.</p>
        <label for="new-password">Password</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          required
          aria-describedby="password-count"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <p id="password-count" class={length > 0 && length < MIN_PASSWORD ? 'error' : 'muted'} aria-live="polite">
          {length} characters; at least {MIN_PASSWORD}. A password manager can suggest one (and remembers it).
        </p>
        {error && (
          <p class="error" role="alert" data-testid="setup-error">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Set password'}
        </button>
      </form>
    </main>
  );
}
