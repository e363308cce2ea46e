/**
 * The header: who is signed in (email or display name, and role), the merchant (a switcher
 * when they belong to several), the environment (a TEST / LIVE badge, and the switch to the
 * other one), the live-updates connection in words that cannot be read as live mode, and
 * sign-out.
 */
import type { LinkState } from './live';
import type { Me } from './ui';

const LINK_WORDS: Record<LinkState, string> = {
  connected: 'Updates: connected',
  connecting: 'Updates: connecting…',
  reconnecting: 'Updates: connection lost, reconnecting…',
};

export interface HeaderProps {
  me: Me;
  link: { state: LinkState; detail?: string };
  busy: boolean;
  error: string | null;
  onSwitch: (merchantId: string, environment: 'TEST' | 'LIVE') => void;
  onSignOut: () => void;
}

export function Header({ me, link, busy, error, onSwitch, onSignOut }: HeaderProps) {
  const live = me.environment === 'LIVE';
  return (
    <header class="top">
      <div class="who">
        {me.memberships.length > 1 ? (
          <label class="switcher">
            <span class="sr">Merchant</span>
            <select value={me.merchant.id} disabled={busy} onChange={(e) => onSwitch(e.currentTarget.value, me.environment)} data-testid="merchant-switcher">
              {me.memberships.map((m) => (
                <option key={m.merchant.id} value={m.merchant.id}>
                  {m.merchant.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <strong data-testid="merchant" class={me.memberships.length > 1 ? 'sr' : ''}>
          {me.merchant.name}
        </strong>
        <span class={`env env-${live ? 'live' : 'test'}`} data-testid="environment">
          {live ? 'LIVE' : 'TEST'}
        </span>
        <button type="button" class="small" disabled={busy} onClick={() => onSwitch(me.merchant.id, live ? 'TEST' : 'LIVE')} data-testid="switch-environment">
          {live ? 'Switch to test' : 'Switch to live'}
        </button>
      </div>
      <span class={`link link-${link.state}`} role="status" data-testid="link-state" title={link.detail}>
        {LINK_WORDS[link.state]}
      </span>
      <div class="member">
        <a href="#/account" data-testid="member">
          {me.displayName ?? me.email}
        </a>{' '}
        <span class="muted" data-testid="role">
          {me.role.toLowerCase()}
        </span>
        <button type="button" onClick={onSignOut} data-testid="signout">
          Sign out
        </button>
      </div>
      {error && (
        <p class="notice" role="alert" data-testid="notice">
          {error}
        </p>
      )}
    </header>
  );
}
