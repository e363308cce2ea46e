/** Balances per currency, the ledger's recent signed movements (both follow the live stream), and the fee schedule. */
import type { FeeScheduleQuery } from '../gql/graphql';
import { fromMinor, label, money, when } from '../format';
import { BalancesDocument } from '../operations/balances';
import { BalanceTransactionsDocument, FeeScheduleDocument } from '../operations/finance';
import { Fields, Table, useApp, useLive, useRecord } from '../ui';

const MOVEMENT_TYPES = ['topup_intent.succeeded', 'payment_intent.succeeded', 'payout_intent.*', 'refund.*'];

export function Balances() {
  const { api } = useApp();
  const record = useRecord(() => api.query(BalancesDocument, { types: MOVEMENT_TYPES }), 'balances');
  // The ledger's movements: one signed row per money move (a payout's reserve and its release are two), not one per event.
  const moves = useRecord(() => api.query(BalanceTransactionsDocument, { after: null, filter: {} }), 'moves');
  useLive((e) => {
    if (/^(topup_intent|payment_intent|payout_intent|refund)\./.test(e.type)) {
      record.reload();
      moves.reload();
    }
  });
  const d = record.data;
  return (
    <section aria-labelledby="balances-title">
      <h1 id="balances-title">Balances</h1>
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {!d && record.loading && (
        <p class="muted" role="status">
          Loading…
        </p>
      )}
      {d && d.balances.length === 0 && (
        <p class="muted" data-testid="empty">
          No balance yet: it appears with the first settled topup or payment.
        </p>
      )}
      {d && d.balances.length > 0 && (
        <div class="cards" data-testid="balances">
          {d.balances.map((b) => (
            <article class="card" key={b.currency} aria-label={`${b.currency} balance`}>
              <h2>{b.currency}</h2>
              <Fields
                rows={[
                  ['Available', money(b.availableMoney)],
                  ['Pending', money(b.pendingMoney)],
                  ['Reserved', money(b.reservedMoney)],
                  ['Updated', when(b.updatedAt)],
                ]}
              />
            </article>
          ))}
        </div>
      )}
      {moves.data && (
        <>
          <h2>Recent movements</h2>
          {moves.data.balanceTransactions.nodes.length === 0 ? (
            <p class="muted">No movements yet.</p>
          ) : (
            <Table
              testId="movements"
              caption="The ledger's recent movements, newest first; money out is negative"
              head={['When', 'What', 'Record', ['Amount', 'num']]}
            >
              {moves.data.balanceTransactions.nodes.map((t) => (
                <tr key={t.id}>
                  <td>{when(t.createdAt)}</td>
                  <td>{label(t.type)}</td>
                  <td>
                    <code class="id">{t.source.id}</code>
                  </td>
                  <td class="num">{money(t.netMoney)}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
      <Fees />
    </section>
  );
}

/** Basis points as a percentage: 165 -> "1.65%", 700 -> "7%". */
const percent = (bps: number): string => `${(bps / 100).toFixed(2).replace(/\.?0+$/, '')}%`;

/** The fee schedule the operator set (read only); fixed amounts are minor units of the payment's or payout's currency. */
function Fees() {
  const { api } = useApp();
  const record = useRecord(() => api.query(FeeScheduleDocument, {}), 'fees');
  const f = record.data?.feeSchedule;
  // A schedule's fixed amounts are minor units of any currency: shown in each currency the merchant has a balance in.
  const inBalances = (minor: string) =>
    (record.data?.balances ?? []).map((b) => money(fromMinor(minor, b.currency, b.availableMoney.exponent))).join(' / ') || `${minor} minor units`;
  return (
    <section aria-labelledby="fees-title" data-testid="fees">
      <h2 id="fees-title">Fees</h2>
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {record.data && !f && <p class="muted">No fee schedule: no fees are taken.</p>}
      {f && <FeeTable schedule={f} fixed={inBalances} />}
    </section>
  );
}

function FeeTable({ schedule: f, fixed }: { schedule: NonNullable<FeeScheduleQuery['feeSchedule']>; fixed: (minor: string) => string }) {
  return (
    <>
      <Fields
        rows={[
          ['Tax on fees', percent(f.taxBps)],
          ['Per payout', fixed(f.payoutFixed)],
          ['Updated', when(f.updatedAt)],
        ]}
      />
      {f.methods.length === 0 ? (
        <p class="muted">No payment method has a fee.</p>
      ) : (
        <Table testId="fee-rates" caption="Fee per payment method, before tax" head={['Method', ['Percentage', 'num'], ['Fixed', 'num']]}>
          {f.methods.map((m) => (
            <tr key={m.paymentMethod}>
              <td>{m.paymentMethod}</td>
              <td class="num">{percent(m.percentBps)}</td>
              <td class="num">{fixed(m.fixed)}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
