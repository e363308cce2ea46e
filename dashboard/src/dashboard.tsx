/**
 * The signed-in shell: TEST MODE banner, header, navigation (only the sections the member's
 * role can read), the reconnection notice, and the live stream feeding every view.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
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
import { Payments } from './views/payments';
import { Payouts } from './views/payouts';
import { Refunds } from './views/refunds';
import { Reports } from './views/reports';
import { Team } from './views/team';
import { Topups } from './views/topups';
import { Webhooks } from './views/webhooks';

/** Section, title, what the role needs to see it, the page. */
const NAV: [string, string, string, (p: { id?: string }) => preact.JSX.Element | null][] = [
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
];

function useRoute(): [string, string | undefined] {
  const parse = (): [string, string | undefined] => {
    const [, view, id] = location.hash.replace(/^#/, '').split('/');
    return [view || 'payouts', id ? decodeURIComponent(id) : undefined];
  };
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const on = () => setRoute(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
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
  const found = view === 'account' ? null : (nav.find(([k]) => k === view) ?? nav[0]);
  const Page = found ? found[3] : Account;
  return (
    <AppContext.Provider value={ctx}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {test && (
        <div class="test-banner" role="note" data-testid="test-banner">
          TEST MODE: simulated money
        </div>
      )}
      <Header me={me} link={link} busy={false} error={notice} onSwitch={onSwitch} onSignOut={onSignOut} />
      <nav class="tabs" aria-label="Sections">
        {nav.map(([k, name]) => (
          <a key={k} href={`#/${k}`} aria-current={found && k === found[0] ? 'page' : undefined}>
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
