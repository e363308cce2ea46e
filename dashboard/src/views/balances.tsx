/** Balances per currency, and the recent events that moved money; both follow the live stream. */
import { fromMinor, money, objectIdOf, when } from '../format';
import { BalancesDocument } from '../operations/balances';
import { Fields, useApp, useLive, useRecord } from '../ui';

const MOVEMENT_TYPES = ['topup_intent.succeeded', 'payment_intent.succeeded', 'payout_intent.*', 'refund.*'];

export function Balances() {
  const { api } = useApp();
  const record = useRecord(() => api.query(BalancesDocument, { types: MOVEMENT_TYPES }), 'balances');
  useLive((e) => {
    if (/^(topup_intent|payment_intent|payout_intent|refund)\./.test(e.type)) record.reload();
  });
  const d = record.data;
  // The exponent of each currency, from the balances' Money fields: events carry raw minor units.
  const exponents = new Map((d?.balances ?? []).map((b) => [b.currency, b.availableMoney.exponent]));
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
      {d && (
        <>
          <h2>Recent movements</h2>
          {d.events.nodes.length === 0 ? (
            <p class="muted">No movements yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr">Recent events that move money</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">What</th>
                    <th scope="col">Record</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {d.events.nodes.map((e) => (
                    <tr key={e.id}>
                      <td>{when(e.createdAt)}</td>
                      <td>{e.type}</td>
                      <td>
                        <code>{objectIdOf(e)}</code>
                      </td>
                      <td class="num">{moneyOf(e.data.object, exponents)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function moneyOf(o: Record<string, unknown>, exponents: Map<string, number>): string {
  if (typeof o.amount !== 'string' || typeof o.currency !== 'string') return '';
  const exponent = exponents.get(o.currency);
  return exponent === undefined ? `${o.amount} ${o.currency} (minor units)` : money(fromMinor(o.amount, o.currency, exponent));
}
