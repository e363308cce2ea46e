/** Payment intents: the list, and a payment's details with its refunds, cancel and the test helpers. */
import type { PaymentIntentStatus, PaymentsQuery } from '../gql/graphql';
import { label, money, when } from '../format';
import { CancelPaymentDocument, PaymentDocument, PaymentsDocument } from '../operations/payments';
import { Fields, Panel, Status, useAction, useApp, useLive, useRecord } from '../ui';
import { ResourceList } from './resource-list';
import { TestActions } from './test-actions';

/** What the payer does next, in words (the NextStep union's member types). */
const NEXT_STEP: Record<string, string> = {
  RedirectToUrlAction: 'redirect to url',
  DisplayQrCodeAction: 'display qr code',
  DisplayBankTransferInstructionsAction: 'display bank transfer instructions',
};

type PaymentRow = NonNullable<PaymentsQuery['paymentIntents']>['nodes'][number];
export function Payments({ id }: { id?: string }) {
  const { api } = useApp();
  return (
    <ResourceList<PaymentRow>
      title="Payments"
      path="payments"
      prefix="payment_intent."
      id={id}
      report="PAYMENTS_ITEMIZED"
      statuses={['REQUIRES_ACTION', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']}
      load={async (after, f) =>
        (await api.query(PaymentsDocument, { after, filter: { ...f, status: f.status as PaymentIntentStatus[] | undefined } })).paymentIntents
      }
      reference={(r) => r.merchantReference}
      detail={id && <PaymentDetail id={id} />}
    />
  );
}

function PaymentDetail({ id }: { id: string }) {
  const { api, can } = useApp();
  const record = useRecord(() => api.query(PaymentDocument, { id }), id);
  const cancel = useAction();
  useLive((e) => {
    if (e.data.object.id === id || e.data.object.payment_intent === id) record.reload();
  });
  const p = record.data?.paymentIntent;
  return (
    <Panel title={p ? `Payment ${p.paymentLink?.description ?? p.merchantReference}` : 'Payment'} back="#/payments">
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {p && (
        <>
          <Fields
            rows={[
              ['ID', <code>{p.id}</code>],
              ['Payment link', p.paymentLink ? (p.paymentLink.description ?? p.paymentLink.id) : null],
              ['Reference', p.paymentLink ? null : p.merchantReference],
              ['Status', <Status value={p.status} />],
              ['Amount', money(p.amountMoney)],
              ['Refunded', p.amountRefundedMoney.minorUnits !== '0' ? money(p.amountRefundedMoney) : null],
              ['Method', p.paymentMethod],
              ['Checkout', label(p.checkoutMode)],
              ['Processing because', p.processingReason],
              ['Next action', p.nextStep ? `${NEXT_STEP[p.nextStep.__typename]} until ${when(p.nextStep.expiresAt)}` : null],
              ['Receipt', p.receipt ? `${p.receipt.receiptNumber} (${when(p.receipt.paidAt)})` : null],
              ['Failure', p.failureMessage],
              ['Created', when(p.createdAt)],
              ['Updated', when(p.updatedAt)],
            ]}
          />
          {p.balanceTransactions.length > 0 && (
            <>
              <h3>Balance transactions</h3>
              <ul data-testid="payment-txns">
                {p.balanceTransactions.map((t) => (
                  <li key={t.id}>
                    {/* A fee row's amount is the fee itself (its own fee is nil): it reads as what was charged. */}
                    {t.type.toLowerCase().includes('fee') ? (
                      <>
                        {label(t.type)}: <span class="num">{money(t.netMoney)}</span>
                      </>
                    ) : (
                      <>
                        {label(t.type)}: amount <span class="num">{money(t.amountMoney)}</span>, fee <span class="num">{money(t.feeMoney)}</span>, net{' '}
                        <span class="num">{money(t.netMoney)}</span>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
          {(p.refunds?.nodes.length ?? 0) > 0 && (
            <>
              <h3>Refunds</h3>
              <ul>
                {(p.refunds?.nodes ?? []).map((r) => (
                  <li key={r.id}>
                    <a href={`#/refunds/${r.id}`}>{money(r.amountMoney)}</a> <Status value={r.status} /> {r.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
          {p.status === 'REQUIRES_ACTION' && can('payment_intents:write') && (
            <div class="actions">
              <button
                type="button"
                disabled={cancel.busy}
                onClick={() =>
                  void cancel.run(async () => {
                    await api.mutate(CancelPaymentDocument, { id, reason: null });
                    record.reload();
                  })
                }
              >
                Cancel payment
              </button>
            </div>
          )}
          {cancel.error && (
            <p class="error" role="alert">
              {cancel.error}
            </p>
          )}
          <TestActions
            kind="payment_intents"
            id={id}
            done={record.reload}
            actions={p.status === 'REQUIRES_ACTION' || p.status === 'PROCESSING' ? ['succeed', 'fail', 'expire'] : []}
          />
        </>
      )}
    </Panel>
  );
}
