/**
 * The merchant dashboard: which screen shows (a setup link's page, sign-in, or the signed-in
 * dashboard), restoring a session on reload (the cookie), signing out, and switching
 * merchant or environment (the session moves; the page reloads who and where it is).
 */
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, createApi, type Api } from './api';
import { Dashboard } from './dashboard';
import { MeDocument, SwitchMerchantDocument } from './operations/me';
import { setupTokenOf, signOut as endSession } from './session';
import { Setup } from './setup';
import { SignIn } from './signin';
import type { Me } from './ui';

type Screen =
  | { kind: 'loading' }
  | { kind: 'setup'; token: string }
  | { kind: 'signin'; message: string | null }
  | { kind: 'in'; api: Api; me: Me; lastEventId: string | null; notice: string | null };

const ENDED = 'Signed out: your session ended (signed out elsewhere, your role changed, you were removed from the team, or it timed out). Sign in again.';

function App() {
  const [screen, setScreen] = useState<Screen>(() => {
    const token = setupTokenOf(location.hash);
    return token ? { kind: 'setup', token } : { kind: 'loading' };
  });
  // A 401 while signed in ends the dashboard's session; before that it only means "not signed in".
  const signedIn = useRef(false);
  const ended = useCallback((message: string | null) => {
    if (!signedIn.current && message) return;
    signedIn.current = false;
    void endSession();
    setScreen({ kind: 'signin', message });
  }, []);

  const load = useCallback(async (notice: string | null = null) => {
    const api = createApi(() => ended(ENDED));
    try {
      const r = await api.query(MeDocument, {});
      if (!r.me) throw new ApiFailure('Not signed in as a member.');
      signedIn.current = true;
      setScreen({ kind: 'in', api, me: r.me, lastEventId: r.events.nodes[0]?.id ?? null, notice });
    } catch {
      if (!signedIn.current) setScreen({ kind: 'signin', message: null });
    }
  }, []);

  useEffect(() => {
    if (screen.kind === 'loading') void load();
    // A setup link opened in a tab that is already on the dashboard.
    const on = () => {
      const token = setupTokenOf(location.hash);
      if (token) setScreen({ kind: 'setup', token });
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);

  const switchTo = async (api: Api, merchantId: string, environment: 'TEST' | 'LIVE') => {
    // The old session id ends with the switch, closing its socket: the dashboard unmounts first.
    signedIn.current = false;
    setScreen({ kind: 'loading' });
    let error: string | null = null;
    try {
      await api.mutate(SwitchMerchantDocument, { merchantId, environment });
    } catch (e) {
      error = (e as Error).message;
    }
    signedIn.current = true;
    await load(error);
  };

  switch (screen.kind) {
    case 'loading':
      return (
        <p class="muted" role="status">
          Loading…
        </p>
      );
    case 'setup':
      return <Setup token={screen.token} onDone={() => void load()} />;
    case 'signin':
      return <SignIn message={screen.message} onSignedIn={(answer) => void load(answer.notice)} />;
    case 'in':
      return (
        <Dashboard
          api={screen.api}
          me={screen.me}
          lastEventId={screen.lastEventId}
          notice={screen.notice}
          onSwitch={(merchantId, environment) => void switchTo(screen.api, merchantId, environment)}
          onSignOut={() => ended(null)}
          onEnded={() => ended(ENDED)}
        />
      );
  }
}

render(<App />, document.getElementById('root')!);
