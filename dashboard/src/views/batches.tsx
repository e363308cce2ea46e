/** Payout batches: upload a CSV, the list, one batch (row errors, approvals, approve, cancel with a reason) and its items following the live stream. */
import { useState } from 'preact/hooks';
import type { PayoutBatchesQuery } from '../gql/graphql';
import { codePoints, money, objectIdOf, REASON_MAX, when } from '../format';
import { ApprovePayoutBatchDocument, CancelPayoutBatchDocument, PayoutBatchDocument, PayoutBatchesDocument } from '../operations/batches';
import { Fields, ListState, Pager, Panel, Status, Table, useAction, useApp, useLive, usePaged, useRecord } from '../ui';
import { useStepUp } from '../step-up';
import { ApprovalState } from './approvals';
import { columnOf } from './batch-csv';
import { RowErrors } from './batch-errors';
import { BatchUpload } from './batch-upload';

type Row = NonNullable<PayoutBatchesQuery['payoutBatches']>['nodes'][number];
const totals = (t: Row['totals']) => t.map((x) => money(x.amountMoney)).join(', ');

export function PayoutBatches({ id }: { id?: string }) {
  const { api, can } = useApp();
  const paged = usePaged<Row>(async (after) => (await api.query(PayoutBatchesDocument, { after })).payoutBatches, 'batches');
  useLive((e) => {
    if (e.type.startsWith('payout_batch.') && paged.page === 1) paged.refresh();
  });
  return (
    <div class={id ? 'split' : ''}>
      <section aria-labelledby="batches-title">
        <h1 id="batches-title">Payout batches</h1>
        {can('payout_batches:write') && (
          <BatchUpload
            onCreated={(b) => {
              paged.refresh();
              location.hash = `#/batches/${b.id}`;
            }}
          />
        )}
        <h2>Batches</h2>
        <ListState paged={paged} empty="No payout batches yet.">
          <Table testId="batches" caption="Payout batches, newest first" head={['Batch', ['Total', 'num'], 'Status', ['Created', 'wide']]}>
            {paged.nodes.map((b) => (
              <tr key={b.id} data-testid={`batch-${b.id}`} data-status={b.status} class={b.id === id ? 'selected' : ''}>
                <td>
                  <a href={`#/batches/${b.id}`} aria-current={b.id === id ? 'true' : undefined}>
                    {b.itemCount} payout{b.itemCount === 1 ? '' : 's'}
                  </a>
                </td>
                <td class="num">{totals(b.totals)}</td>
                <td>
                  <Status value={b.status} />
                </td>
                <td class="wide">{when(b.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <Pager paged={paged} />
        </ListState>
      </section>
      {id && <BatchDetail id={id} onChanged={paged.refresh} />}
    </div>
  );
}

function BatchDetail({ id, onChanged }: { id: string; onChanged: () => void }) {
  const { api, can, me } = useApp();
  const [tick, setTick] = useState(0);
  const record = useRecord(() => api.query(PayoutBatchDocument, { id }), `${id}:${tick}`);
  const action = useAction();
  const [cancelling, setCancelling] = useState(false);
  const [reason, setReason] = useState('');
  const tooLong = codePoints(reason) > REASON_MAX;
  const b = record.data?.payoutBatch;
  const itemIds = new Set(b?.items.nodes.map((i) => i.id));
  // The batch's own events and its payouts' events re-read it: its items follow the live stream.
  useLive((e) => {
    if ((e.type.startsWith('payout_batch.') && objectIdOf(e) === id) || (e.type.startsWith('payout_intent.') && itemIds.has(objectIdOf(e))))
      setTick((t) => t + 1);
    else if (e.type === 'payout_intent.created' && b?.status === 'PROCESSING') setTick((t) => t + 1);
  });
  const done = () => {
    onChanged();
    setTick((t) => t + 1);
  };
  const approve = () => action.run(async () => void (await api.mutate(ApprovePayoutBatchDocument, { id }), done()));
  // A live approval needs an authentication code from the last 5 minutes: asked for first, as on the payout page.
  const stepUp = useStepUp(approve);
  const cancel = (e: Event) => {
    e.preventDefault();
    if (tooLong) return;
    void action.run(async () => {
      await api.mutate(CancelPayoutBatchDocument, { id, reason: reason.trim() || null });
      setCancelling(false);
      done();
    });
  };
  return (
    <Panel title="Payout batch" back="#/batches">
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {b && (
        <>
          <Fields
            rows={[
              ['ID', <code>{b.id}</code>],
              ['Status', <Status value={b.status} />],
              ['Payouts', String(b.itemCount)],
              ['Total', totals(b.totals)],
              ['Created', when(b.createdAt)],
              ['Updated', when(b.updatedAt)],
            ]}
          />
          <RowErrors errors={b.errors.map((x) => ({ row: x.row, column: columnOf(x.param), message: x.message }))} testid="batch-errors" />
          {/* ApprovalState reads only approvals, approvalsRequired and status, which a batch has too. */}
          <ApprovalState payout={b as never} />
          {stepUp.form}
          {b.status === 'REQUIRES_APPROVAL' && !cancelling && !stepUp.asking && (
            <div class="actions">
              {can('payout_approvals:write') && !b.approvals.some((a) => a.actor.id === me.id) && (
                <button type="button" class="primary" onClick={() => void stepUp.start()} disabled={action.busy} data-testid="approve-batch">
                  Approve
                </button>
              )}
              {can('payout_batches:write') && (
                <button type="button" onClick={() => setCancelling(true)} disabled={action.busy} data-testid="cancel-batch">
                  Cancel batch…
                </button>
              )}
            </div>
          )}
          {b.status === 'REQUIRES_APPROVAL' && cancelling && (
            <form class="cancel-form" onSubmit={cancel}>
              <label for="batch-reason">Reason for cancelling</label>
              <textarea
                id="batch-reason"
                rows={3}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
                aria-invalid={tooLong}
                aria-describedby="batch-reason-count"
              />
              <p id="batch-reason-count" class={tooLong ? 'error' : 'muted'} aria-live="polite">
                {codePoints(reason)} / {REASON_MAX} characters{tooLong ? ': too long' : ''}
              </p>
              <div class="actions">
                <button type="submit" class="danger" disabled={action.busy || tooLong} data-testid="confirm-cancel-batch">
                  Cancel batch
                </button>
                <button type="button" onClick={() => setCancelling(false)}>
                  Keep it
                </button>
              </div>
            </form>
          )}
          {action.error && (
            <p class="error" role="alert">
              {action.error}
            </p>
          )}
          {b.items.nodes.length > 0 && (
            <>
              <h3>Payouts{b.itemCount > 25 ? ' (the newest 25)' : ''}</h3>
              <ul class="audit" data-testid="batch-items">
                {b.items.nodes.map((i) => (
                  <li key={i.id} data-status={i.status}>
                    <a href={`#/payouts/${i.id}`}>{i.merchantReference}</a> {money(i.amountMoney)} to {i.recipient.holderName} <Status value={i.status} />
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </Panel>
  );
}
