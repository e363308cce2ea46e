/**
 * The merchant dashboard: sign-in, the shell (merchant, environment, TEST MODE banner,
 * connection state, navigation) and the live stream feeding every view.
 */
import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiFailure, createApi, type Api } from './api';
import { startLive, type LinkState, type LiveEvent } from './live';
import { objectIdOf } from './format';
import { ViewerDocument } from './operations/viewer';
import type { ViewerQuery } from './gql/graphql';
import { clearSession, loadSession, saveSession, type Session } from './session';
import { AppContext, type Ctx, type Listener } from './ui';
import { Audit } from './views/audit';
import { Balances } from './views/balances';
import { Events } from './views/events';
import { Payments } from './views/payments';
import { Payouts } from './views/payouts';
import { Refunds } from './views/refunds';
import { Topups } from './views/topups';
import { Webhooks } from './views/webhooks';

const NAV: [string, string][] = [
  ['payouts', 'Payouts'],
  ['balances', 'Balances'],
  ['payments', 'Payments'],
  ['topups', 'Topups'],
  ['refunds', 'Refunds'],
  ['events', 'Events'],
  ['webhooks', 'Webhooks'],
  ['audit', 'Audit log'],
];

function useRoute(): [string, string | undefined] {
  const parse = () => {
    const [, view, id] = location.hash.replace(/^#/, '').split('/');
    return [NAV.some(([k]) => k === view) ? view : 'payouts', id ? decodeURIComponent(id) : undefined] as [string, string | undefined];
  };
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const on = () => setRoute(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

function SignIn({ message, onSignedIn }: { message: string | null; onSignedIn: (s: Session, api: Api, viewer: ViewerQuery) => void }) {
  const [publicKey, setPublicKey] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const session = { publicKey: publicKey.trim(), secretKey: secretKey.trim() };
    if (!session.publicKey || !session.secretKey) return setError('Enter both keys of the pair.');
    setBusy(true);
    setError(null);
    let refused = false;
    const api = createApi(session, () => (refused = true));
    try {
      const viewer = await api.query(ViewerDocument, {});
      onSignedIn(session, api, viewer);
    } catch (err) {
      setError(refused ? 'Those keys were not accepted: check both keys, and that the pair is not revoked.' : (err as ApiFailure).message);
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
        <label for="pk">Public key</label>
        <input
          id="pk"
          name="pk"
          autoComplete="username"
          spellcheck={false}
          placeholder="pk_test_…"
          value={publicKey}
          onInput={(e) => setPublicKey(e.currentTarget.value)}
        />
        <label for="sk">Secret key</label>
        <input
          id="sk"
          name="sk"
          type="password"
          autoComplete="current-password"
          placeholder="sk_test_…"
          value={secretKey}
          onInput={(e) => setSecretKey(e.currentTarget.value)}
        />
        {error && (
          <p class="error" role="alert" data-testid="signin-error">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted">The keys stay in this browser tab only (session storage) and are cleared when you sign out.</p>
      </form>
    </main>
  );
}

interface Signed {
  session: Session;
  api: Api;
  viewer: ViewerQuery;
}

function Dashboard({ signed, onSignOut }: { signed: Signed; onSignOut: (message: string | null) => void }) {
  const [view, id] = useRoute();
  const [link, setLink] = useState<{ state: LinkState; detail?: string }>({ state: 'connecting' });
  const [missed, setMissed] = useState<LiveEvent[] | null>(null);
  const listeners = useRef(new Set<Listener>());
  const listen = useCallback((fn: Listener) => {
    listeners.current.add(fn);
    return () => void listeners.current.delete(fn);
  }, []);
  const test = signed.viewer.viewer.environment === 'TEST';
  const ctx: Ctx = useMemo(() => ({ api: signed.api, test, listen }), [signed, listen]);

  useEffect(() => {
    const live = startLive(signed.session, signed.viewer.events.nodes[0]?.id ?? null, {
      onEvent: (event, wasMissed) => {
        if (wasMissed) setMissed((m) => [...(m ?? []), event]);
        for (const fn of listeners.current) fn(event);
      },
      onState: (state, detail) => setLink({ state, detail }),
      onRevoked: () => onSignOut('Signed out: this key was revoked or is no longer accepted. Sign in with a valid key pair.'),
      onReconnected: () => setMissed([]),
    });
    return () => live.stop();
  }, [signed]);

  const { viewer } = signed.viewer;
  const page =
    {
      payouts: Payouts,
      balances: Balances,
      payments: Payments,
      topups: Topups,
      refunds: Refunds,
      events: Events,
      webhooks: Webhooks,
      audit: Audit,
    }[view] ?? Payouts;
  const Page = page;
  return (
    <AppContext.Provider value={ctx}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {test && (
        <div class="test-banner" role="note" data-testid="test-banner">
          TEST MODE: test keys, simulated money
        </div>
      )}
      <header class="top">
        <div class="who">
          <strong data-testid="merchant">{viewer.merchant.name}</strong>
          <span class={`env env-${viewer.environment.toLowerCase()}`} data-testid="environment">
            {viewer.environment.toLowerCase()}
          </span>
        </div>
        <span class={`link link-${link.state}`} role="status" data-testid="link-state" title={link.detail}>
          {link.state === 'live' ? 'Live' : link.state === 'connecting' ? 'Connecting…' : 'Connection lost, reconnecting…'}
        </span>
        <button type="button" onClick={() => onSignOut(null)} data-testid="signout">
          Sign out
        </button>
      </header>
      <nav class="tabs" aria-label="Sections">
        {NAV.map(([k, name]) => (
          <a key={k} href={`#/${k}`} aria-current={k === view ? 'page' : undefined}>
            {name}
          </a>
        ))}
      </nav>
      {missed && missed.length > 0 && (
        <div class="notice" role="status" data-testid="missed">
          <strong>Reconnected.</strong> {missed.length} change{missed.length === 1 ? '' : 's'} while the connection was down:
          <ul>
            {missed.slice(0, 8).map((e) => (
              <li key={e.id}>
                {e.type} <code>{objectIdOf(e)}</code>
              </li>
            ))}
          </ul>
          {missed.length > 8 && <span>and {missed.length - 8} more (see Events).</span>}
          <button type="button" onClick={() => setMissed(null)}>
            Dismiss
          </button>
        </div>
      )}
      <main id="main" tabIndex={-1}>
        <Page id={id} />
      </main>
    </AppContext.Provider>
  );
}

function App() {
  const [signed, setSigned] = useState<Signed | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [restoring, setRestoring] = useState(() => loadSession() !== null);
  const signOut = useCallback((why: string | null) => {
    clearSession();
    setSigned(null);
    setMessage(why);
  }, []);
  const unauthorized = useCallback(
    () => signOut('Signed out: the server no longer accepts this key (revoked or wrong). Sign in with a valid key pair.'),
    [signOut],
  );

  // A reload in the same tab keeps the session.
  useEffect(() => {
    const session = loadSession();
    if (!session) return;
    const api = createApi(session, unauthorized);
    api
      .query(ViewerDocument, {})
      .then(
        (viewer) => setSigned({ session, api, viewer }),
        () => signOut('Could not restore the session: sign in again.'),
      )
      .finally(() => setRestoring(false));
  }, []);

  if (restoring)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  if (!signed) {
    return (
      <SignIn
        message={message}
        onSignedIn={(session, _api, viewer) => {
          saveSession(session);
          setMessage(null);
          // From now on a 401 anywhere signs the browser out.
          setSigned({ session, api: createApi(session, unauthorized), viewer });
        }}
      />
    );
  }
  return <Dashboard signed={signed} onSignOut={signOut} />;
}

render(<App />, document.getElementById('root')!);
