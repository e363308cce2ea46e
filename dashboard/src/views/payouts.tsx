/** Payout intents: filters, cursor paging, details, approve, cancel with a reason; rows follow the live stream. */
import { useRef, useState } from 'preact/hooks';
import type { LiveEvent } from '../live';
import type { PayoutIntentStatus, PayoutsQuery } from '../gql/graphql';
import { useStepUp } from '../step-up';
import { ApprovePayoutDocument, CancelPayoutDocument, PayoutDocument, PayoutsDocument } from '../operations/payouts';
import { codePoints, label, money, objectIdOf, REASON_MAX, when } from '../format';
import { Fields, ListState, Pager, Panel, Status, Table, useAction, useApp, useLive, usePaged, useRecord } from '../ui';
import { ApprovalState } from './approvals';
import { ExportCsv, intervalFilter, IntervalFields, NO_INTERVAL, type Interval } from './export-csv';

type Row = NonNullable<PayoutsQuery['payoutIntents']>['nodes'][number];
const STATUSES: PayoutIntentStatus[] = ['REQUIRES_APPROVAL', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

export function Payouts({ id }: { id?: string }) {
  const { api } = useApp();
  const [status, setStatus] = useState('');
  const [reference, setReference] = useState('');
  const [range, setRange] = useState<Interval>(NO_INTERVAL);
  const [applied, setApplied] = useState({ status: '', reference: '', interval: range });
  const [flash, setFlash] = useState<Record<string, number>>({});
  const filter = {
    ...(applied.status ? { status: [applied.status as PayoutIntentStatus] } : {}),
    ...(applied.reference ? { merchantReference: applied.reference } : {}),
    ...intervalFilter(applied.interval),
  };
  const paged = usePaged<Row>(async (after) => (await api.query(PayoutsDocument, { after, filter })).payoutIntents, JSON.stringify(filter));
  const [detailTick, setDetailTick] = useState(0);

  // Events are applied one after the other: a later event's re-read never lands before an earlier one's.
  const queue = useRef(Promise.resolve());
  useLive((event) => {
    if (!event.type.startsWith('payout_intent.')) return;
    queue.current = queue.current.then(() => applyEvent(event)).catch(() => undefined);
  });
  async function applyEvent(event: LiveEvent): Promise<void> {
    const pid = objectIdOf(event);
    if (pid === id) setDetailTick((t) => t + 1);
    const fresh = (await api.query(PayoutDocument, { id: pid })).payoutIntent;
    if (!fresh) return;
    const matches =
      (!applied.status || fresh.status === applied.status) &&
      (!applied.reference || fresh.merchantReference === applied.reference) &&
      (!filter.currency || fresh.currency === filter.currency) &&
      (!filter.createdGte || fresh.createdAt >= filter.createdGte) &&
      (!filter.createdLt || fresh.createdAt < filter.createdLt);
    paged.update((rows) => {
      const at = rows.findIndex((r) => r.id === fresh.id);
      if (at >= 0) return matches ? rows.map((r) => (r.id === fresh.id ? { ...r, ...fresh } : r)) : rows.filter((r) => r.id !== fresh.id);
      // A new payout is the newest: it goes on top of the first page. An older one that changed stays where the server lists it.
      return matches && paged.page === 1 && event.type === 'payout_intent.created' ? [fresh, ...rows] : rows;
    });
    setFlash((f) => ({ ...f, [fresh.id]: Date.now() }));
  }

  return (
    <div class={id ? 'split' : ''}>
      <section aria-labelledby="payouts-title">
        <h1 id="payouts-title">Payouts</h1>
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            setApplied({ status, reference: reference.trim(), interval: range });
          }}
        >
          <label>
            Status
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value)} data-testid="filter-status">
              <option value="">All</option>
              {STATUSES.map((s) => (
                <option value={s} key={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Merchant reference
            <input value={reference} onInput={(e) => setReference(e.currentTarget.value)} data-testid="filter-reference" />
          </label>
          <IntervalFields value={range} onChange={setRange} />
          <button type="submit">Apply</button>
        </form>
        <ExportCsv reportType="PAYOUTS_ITEMIZED" interval={applied.interval} ignored="status and reference" />
        <ListState paged={paged} empty="No payouts match.">
          <Table testId="payouts" caption="Payout intents, newest first" head={['Reference', ['Amount', 'num'], 'Status', ['Created', 'wide']]}>
            {paged.nodes.map((p) => (
              <tr
                key={`${p.id}-${flash[p.id] ?? 0}`}
                data-testid={`payout-${p.id}`}
                data-status={p.status}
                class={[p.id === id ? 'selected' : '', flash[p.id] ? 'flash' : ''].join(' ')}
              >
                <td>
                  <a href={`#/payouts/${p.id}`} aria-current={p.id === id ? 'true' : undefined}>
                    {p.merchantReference}
                  </a>
                </td>
                <td class="num">{money(p.amountMoney)}</td>
                <td>
                  <Status value={p.status} />
                </td>
                <td class="wide">{when(p.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <Pager paged={paged} />
        </ListState>
      </section>
      {id && <PayoutDetail id={id} tick={detailTick} onChanged={(row) => paged.update((rows) => rows.map((r) => (r.id === row.id ? { ...r, ...row } : r)))} />}
    </div>
  );
}

function PayoutDetail({ id, tick, onChanged }: { id: string; tick: number; onChanged: (row: Partial<Row> & { id: string }) => void }) {
  const { api, can, me } = useApp();
  const record = useRecord(() => api.query(PayoutDocument, { id }), `${id}:${tick}`);
  const action = useAction();
  const [cancelling, setCancelling] = useState(false);
  const [reason, setReason] = useState('');
  const count = codePoints(reason);
  const tooLong = count > REASON_MAX;
  const p = record.data?.payoutIntent;

  const approve = () =>
    action.run(async () => {
      const r = await api.mutate(ApprovePayoutDocument, { id });
      if (r.approvePayoutIntent) onChanged(r.approvePayoutIntent);
      record.reload();
    });
  const stepUp = useStepUp(approve);
  const cancel = (e: Event) => {
    e.preventDefault();
    if (tooLong) return;
    void action.run(async () => {
      const r = await api.mutate(CancelPayoutDocument, { id, reason: reason.trim() || null });
      if (r.cancelPayoutIntent) onChanged(r.cancelPayoutIntent);
      setCancelling(false);
      setReason('');
      record.reload();
    });
  };

  return (
    <Panel title={p ? `Payout ${p.merchantReference}` : 'Payout'} back="#/payouts">
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {!p && record.loading && (
        <p role="status" class="muted">
          Loading…
        </p>
      )}
      {p && (
        <>
          <Fields
            rows={[
              ['ID', <code>{p.id}</code>],
              ['Status', <Status value={p.status} />],
              ['Amount', money(p.amountMoney)],
              ['Country', p.country],
              ['Recipient', `${p.recipient.holderName}, ${p.recipient.bankCode} ••••${p.recipient.accountLast4}`],
              [
                p.status === 'CANCELLED' ? 'Cancellation reason' : 'Failure',
                p.failureMessage ? <span data-testid="failure-message">{p.failureMessage}</span> : null,
              ],
              ['Failure code', p.failureCode],
              ['Created', when(p.createdAt)],
              ['Updated', when(p.updatedAt)],
            ]}
          />
          <ApprovalState payout={p} />
          {stepUp.form}
          {p.status === 'REQUIRES_APPROVAL' && !cancelling && !stepUp.asking && (can('payout_approvals:write') || can('payout_intents:write')) && (
            <div class="actions">
              {can('payout_approvals:write') && !p.approvals.some((a) => a.actor.id === me.id) && (
                <button type="button" class="primary" onClick={() => void stepUp.start()} disabled={action.busy} data-testid="approve">
                  Approve
                </button>
              )}
              {can('payout_intents:write') && (
                <button type="button" onClick={() => setCancelling(true)} disabled={action.busy} data-testid="cancel">
                  Cancel payout…
                </button>
              )}
            </div>
          )}
          {p.status === 'REQUIRES_APPROVAL' && cancelling && (
            <form class="cancel-form" onSubmit={cancel}>
              <label for="reason">Reason for cancelling (shown in the audit log and the webhook)</label>
              <textarea
                id="reason"
                rows={3}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
                aria-describedby="reason-count"
                aria-invalid={tooLong}
                data-testid="reason"
              />
              <p id="reason-count" class={tooLong ? 'error' : 'muted'} aria-live="polite">
                {count} / {REASON_MAX} characters{tooLong ? ': too long' : ''}
              </p>
              <div class="actions">
                <button type="submit" class="danger" disabled={action.busy || tooLong} data-testid="confirm-cancel">
                  Cancel payout
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
          <h3>Audit trail</h3>
          {record.data!.auditLog.nodes.length === 0 ? (
            <p class="muted">No calls recorded.</p>
          ) : (
            <ul class="audit" data-testid="payout-audit">
              {record.data!.auditLog.nodes.map((a) => (
                <li key={a.id}>
                  <code>{a.operation}</code> → {a.statusCode} <span class="muted">{when(a.createdAt)}</span>
                  {a.reason && (
                    <div>
                      Reason: <q>{a.reason}</q>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Panel>
  );
}
