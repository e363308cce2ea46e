/**
 * Which payment methods live-mode payments can take now: the operator connects provider
 * accounts; owners and admins see the outcome per method, never which provider takes it.
 */
import { LivePaymentMethodsDocument } from '../operations/live-methods';
import { Table, useApp, useRecord } from '../ui';

export function LiveMethods() {
  const { api } = useApp();
  const methods = useRecord(() => api.query(LivePaymentMethodsDocument, {}), 'live-methods');
  const rows = methods.data?.livePaymentMethods ?? [];
  return (
    <>
      <h2 id="live-methods-title">Payment methods in live mode</h2>
      {methods.error && (
        <p class="error" role="alert">
          {methods.error}
        </p>
      )}
      {methods.data && (
        <>
          <p class="muted">
            {rows.some((m) => m.live)
              ? 'Live payments can use the methods marked Live. Ask the operator to connect more.'
              : 'No payment method is live yet: the operator connects the payment providers that make them live.'}
          </p>
          <Table testId="live-methods" caption="Payment methods and whether live payments can use them" head={['Payment method', 'Live mode']}>
            {rows.map((m) => (
              <tr key={m.paymentMethod} data-testid={`live-${m.paymentMethod}`}>
                <td>{m.displayName}</td>
                <td>{m.live ? 'Live' : 'Not live'}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </>
  );
}
