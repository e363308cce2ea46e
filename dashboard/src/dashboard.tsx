/**
 * The signed-in shell: the TEST MODE or LIVE MODE banner, header, navigation (only the sections
 * the member's role can read; wrapped on wide screens, a Menu button on phones), the
 * reconnection notice, and the live stream feeding every view. A section the role cannot open
 * says so instead of showing another page.
 */
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Api } from './api';
import { objectIdOf } from './format';
import { Header } from './header';
import { startLive, type Live, type LinkState, type LiveEvent } from './live';
import { AppContext, allows, type Ctx, type Listener, type Me } from './ui';
import { Account } from './views/account';
import { ApiKeys } from './views/api-keys';
import { Audit } from './views/audit';
import { Balances } from './views/balances';
import { BalanceTransactions } from './views/balance-transactions';
import { PayoutBatches } from './views/batches';
import { Events } from './views/events';
import { PaymentLinks } from './views/links';
import { Overview } from './views/overview';
import { Payments } from './views/payments';
import { Payouts } from './views/payouts';
import { Refunds } from './views/refunds';
import { Settings } from './views/settings';
import { Reports } from './views/reports';
import { Team } from './views/team';
import { Topups } from './views/topups';
import { Webhooks } from './views/webhooks';

/** Section, title, what the role needs to see it, the page. */
const NAV: [string, string, string, (p: { id?: string }) => preact.JSX.Element | null][] = [
  // The first page after sign-in.
  ['overview', 'Overview', 'balance_transactions:read', Overview],
  ['payouts', 'Payouts', 'payout_intents:read', Payouts],
  ['batches', 'Payout batches', 'payout_batches:read', PayoutBatches],
  ['balances', 'Balances', 'balances:read', Balances],
  ['transactions', 'Balance transactions', 'balance_transactions:read', BalanceTransactions],
  ['reports', 'Reports', 'report_runs:read', Reports],
  ['payments', 'Payments', 'payment_intents:read', Payments],
  ['links', 'Payment links', 'payment_links:read', PaymentLinks],
  ['topups', 'Topups', 'topup_intents:read', Topups],
  ['refunds', 'Refunds', 'refunds:read', Refunds],
  ['events', 'Events', 'events:read', Events],
  ['webhooks', 'Webhooks', 'webhook_endpoints:read', Webhooks],
  ['audit', 'Audit log', 'events:read', Audit],
  ['keys', 'API keys', 'api_keys', ApiKeys],
  ['team', 'Team', 'members', Team],
  ['settings', 'Settings', 'balances:read', Settings],
];

function useRoute(): [string, string | undefined] {
  const parse = (): [string, string | undefined] => {
    const [, view, id] = location.hash.replace(/^#/, '').split('/');
    return [view || 'overview', id ? decodeURIComponent(id) : undefined];
  };
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    // An in-page anchor (the skip link's #main) is not a route: the page stays where it is.
    const on = () => (location.hash.startsWith('#/') || location.hash === '' ? setRoute(parse()) : undefined);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** A section the member's role cannot open: said, with the way back. */
function Refused() {
  const { me } = useContext(AppContext);
  return (
    <section aria-labelledby="refused-title" data-testid="refused">
      <h1 id="refused-title">Not available to your role</h1>
      <p>
        Your role ({me.role.toLowerCase()}) cannot open this page. An owner or admin can change your role on the Team page.{' '}
        <a href="#/">Go to the first page</a>.
      </p>
    </section>
  );
}

export interface DashboardProps {
  api: Api;
  me: Me;
  lastEventId: string | null;
  notice: string | null;
  onSwitch: (merchantId: string, environment: 'TEST' | 'LIVE') => void;
  onSignOut: () => void;
  onEnded: () => void;
}

export function Dashboard({ api, me, lastEventId, notice, onSwitch, onSignOut, onEnded }: DashboardProps) {
  const [view, id] = useRoute();
  const [link, setLink] = useState<{ state: LinkState; detail?: string }>({ state: 'connecting' });
  const [missed, setMissed] = useState<LiveEvent[] | null>(null);
  const listeners = useRef(new Set<Listener>());
  const listen = useCallback((fn: Listener) => {
    listeners.current.add(fn);
    return () => void listeners.current.delete(fn);
  }, []);
  const test = me.environment === 'TEST';
  const can = useCallback((needed: string) => allows(me, needed), [me]);
  const socket = useRef<Live | null>(null);
  const live: Ctx['live'] = useMemo(
    () => ({
      lastEventId: () => socket.current?.lastEventId() ?? lastEventId,
      watch: (...args) => socket.current!.watch(...args),
    }),
    [lastEventId],
  );
  const ctx: Ctx = useMemo(() => ({ api, test, listen, me, can, live, signOut: onSignOut }), [api, me, listen]);

  useEffect(() => {
    const live = (socket.current = startLive(lastEventId, {
      onEvent: (event, wasMissed) => {
        if (wasMissed) setMissed((m) => [...(m ?? []), event]);
        for (const fn of listeners.current) fn(event);
      },
      onState: (state, detail) => setLink({ state, detail }),
      onEnded,
      onReconnected: () => setMissed([]),
    }));
    return () => live.stop();
  }, [api, me]);

  const nav = NAV.filter(([, , needs]) => can(needs));
  const known = NAV.some(([k]) => k === view);
  const refused = known && !nav.some(([k]) => k === view);
  const found = view === 'account' ? null : (nav.find(([k]) => k === view) ?? nav[0]);
  const Page = refused ? Refused : found ? found[3] : Account;
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [view, id]);
  return (
    <AppContext.Provider value={ctx}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <div role="region" aria-label="Mode">
        {test ? (
          <p class="test-banner" data-testid="test-banner">
            TEST MODE: simulated money
          </p>
        ) : (
          <p class="live-banner" data-testid="live-banner">
            LIVE MODE: real money moves
          </p>
        )}
      </div>
      <Header me={me} link={link} busy={false} error={notice} onSwitch={onSwitch} onSignOut={onSignOut} />
      <nav class={`tabs${menuOpen ? ' open' : ''}`} aria-label="Sections">
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="sections" onClick={() => setMenuOpen(!menuOpen)} data-testid="menu">
          Menu<span class="sr"> of sections</span>
          {found && <span aria-hidden="true">: {found[1]}</span>}
        </button>
        <ul id="sections">
          {nav.map(([k, name]) => (
            <li key={k}>
              <a href={`#/${k}`} aria-current={!refused && found && k === found[0] ? 'page' : undefined}>
                {name}
              </a>
            </li>
          ))}
        </ul>
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
