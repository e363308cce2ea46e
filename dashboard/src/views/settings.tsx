/**
 * Settings: the approval policies (four eyes on payouts; owners list, add, change and delete
 * them, and in live mode each change asks for an authentication code first) and the fee
 * schedule the operator set (everyone reads it; only the operator's CLI changes it), and for
 * owners and admins which payment methods live mode can take.
 */
import { useRef, useState } from 'preact/hooks';
import type { SettingsQuery } from '../gql/graphql';
import { when } from '../format';
import { DeleteApprovalPolicyDocument, SetApprovalPolicyDocument, SettingsDocument } from '../operations/settings';
import { useStepUp } from '../step-up';
import { LiveMethods } from './live-methods';
import { Table, useAction, useApp, useRecord } from '../ui';

type Policy = NonNullable<SettingsQuery['approvalPolicies']>[number];
type Fees = NonNullable<SettingsQuery['feeSchedule']>;

/** Basis points as a percentage: 165 -> "1.65%". */
export const percent = (bps: number): string => `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}%`;

const EMPTY = { currency: '', minAmount: '', approvals: '2', keysCount: false };

export function Settings() {
  const { api, can, me } = useApp();
  const owner = can('approval_policies');
  const settings = useRecord(() => api.query(SettingsDocument, {}), me.environment);
  const [form, setForm] = useState(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const pending = useRef<() => Promise<void>>(() => Promise.resolve());
  const stepUp = useStepUp(() => action.run(() => pending.current()), 'Confirm and save');

  const ask = (fn: () => Promise<void>) => {
    setDone(null);
    pending.current = fn;
    return me.environment === 'LIVE' ? stepUp.start() : action.run(fn);
  };
  const save = (e: Event) => {
    e.preventDefault();
    const currency = form.currency.trim().toUpperCase();
    const input = {
      minAmountMoney: { minorUnits: form.minAmount.trim(), currency },
      approvals: Number(form.approvals),
      keysCount: form.keysCount,
    };
    return ask(async () => {
      await api.mutate(SetApprovalPolicyDocument, { input });
      setDone(`The ${currency} policy is saved; payouts created from now on follow it.`);
      setForm(EMPTY);
      setEditing(null);
      settings.reload();
    });
  };
  const remove = (p: Policy) =>
    ask(async () => {
      await api.mutate(DeleteApprovalPolicyDocument, { id: p.id });
      setDone(`The ${p.currency} policy is deleted.`);
      settings.reload();
    });
  const edit = (p: Policy) => {
    setDone(null);
    setEditing(p.id);
    setForm({ currency: p.currency, minAmount: p.minAmountMoney.minorUnits, approvals: String(p.approvals), keysCount: p.keysCount });
    document.getElementById('policy-currency')?.focus();
  };

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <h2 id="policies-title">Approval policies</h2>
      <p class="muted">
        Payouts of a currency at or above its minimum amount wait for this many approvals by different people before they are sent. A change applies to payouts
        created after it.
      </p>
      {settings.error && (
        <p class="error" role="alert">
          Could not load: {settings.error}
        </p>
      )}
      {settings.data && settings.data.approvalPolicies.length === 0 && (
        <p class="muted" data-testid="no-policies">
          No policies: one approval sends any payout.
        </p>
      )}
      {settings.data && settings.data.approvalPolicies.length > 0 && (
        <Table
          testId="policies"
          caption="Approval policies, by currency"
          head={['Currency', 'From amount (minor units)', 'Approvals', 'API keys count', 'Updated', ...(owner ? [['Actions', 'sr'] as [string, string]] : [])]}
        >
          {settings.data.approvalPolicies.map((p) => (
            <tr key={p.id} data-testid={`policy-${p.currency}`}>
              <td>{p.currency}</td>
              <td class="num">{p.minAmountMoney.minorUnits}</td>
              <td class="num">{p.approvals}</td>
              <td>{p.keysCount ? 'Yes' : 'No, members only'}</td>
              <td>{when(p.updatedAt)}</td>
              {owner && (
                <td class="row-actions">
                  <button type="button" onClick={() => edit(p)} disabled={action.busy}>
                    Change<span class="sr"> the {p.currency} policy</span>
                  </button>
                  <button type="button" class="danger" onClick={() => void remove(p)} disabled={action.busy}>
                    Delete<span class="sr"> the {p.currency} policy</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      {owner ? (
        <form class="form" onSubmit={(e) => void save(e)} aria-labelledby="policy-form-title" data-testid="policy-form">
          <h3 id="policy-form-title">{editing ? `Change the ${form.currency} policy` : 'Add or replace a policy'}</h3>
          <label for="policy-currency">Currency</label>
          <input
            id="policy-currency"
            value={form.currency}
            maxLength={3}
            autoComplete="off"
            placeholder="THB"
            required
            onInput={(e) => setForm({ ...form, currency: e.currentTarget.value })}
          />
          <label for="policy-min">Minimum amount, in minor units (100000 THB minor units is 1,000.00 THB)</label>
          <input id="policy-min" inputMode="numeric" value={form.minAmount} required onInput={(e) => setForm({ ...form, minAmount: e.currentTarget.value })} />
          <label for="policy-approvals">Approvals needed</label>
          <select id="policy-approvals" value={form.approvals} onChange={(e) => setForm({ ...form, approvals: e.currentTarget.value })}>
            <option value="1">1</option>
            <option value="2">2</option>
            <option value="3">3</option>
          </select>
          <div class="check">
            <input id="policy-keys" type="checkbox" checked={form.keysCount} onChange={(e) => setForm({ ...form, keysCount: e.currentTarget.checked })} />
            <label for="policy-keys">An API key&rsquo;s approval counts as one</label>
          </div>
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy || stepUp.asking}>
              Save policy
            </button>
            {editing && (
              <button
                type="button"
                onClick={() => {
                  setEditing(null);
                  setForm(EMPTY);
                }}
              >
                Cancel
              </button>
            )}
          </div>
        </form>
      ) : (
        <p class="muted" data-testid="policies-owner-only">
          Only owners change approval policies.
        </p>
      )}
      {stepUp.form}
      {action.error && (
        <p class="error" role="alert" data-testid="settings-error">
          {action.error}
        </p>
      )}
      {done && !action.error && (
        <p class="ok" role="status" data-testid="settings-done">
          {done}
        </p>
      )}
      <h2 id="fees-title">Fees</h2>
      {settings.data && <FeeSchedule fees={settings.data.feeSchedule ?? null} />}
      {can('payment_intents:write') && <LiveMethods />}
    </section>
  );
}

function FeeSchedule({ fees }: { fees: Fees | null }) {
  if (!fees)
    return (
      <p class="muted" data-testid="no-fees">
        No fee schedule: payments and payouts carry no fees.
      </p>
    );
  return (
    <div data-testid="fee-schedule">
      <p class="muted">
        Set by the operator; last changed {when(fees.updatedAt)}. Tax on every fee: {percent(fees.taxBps)}.
      </p>
      <Table testId="fees" caption="Fee per payment method" head={['Payment method', 'Percentage', 'Fixed (minor units)']}>
        {fees.methods.map((m) => (
          <tr key={m.paymentMethod}>
            <td>{m.paymentMethod}</td>
            <td class="num">{percent(m.percentBps)}</td>
            <td class="num">{m.fixed}</td>
          </tr>
        ))}
      </Table>
      <p data-testid="payout-fee">Fee per payout: {fees.payoutFixed} minor units of the payout&rsquo;s currency.</p>
    </div>
  );
}
