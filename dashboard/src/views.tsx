/** Balances, payments, topups, refunds, events, webhook endpoints and the audit log. */
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type {
  AuditQuery, EventsQuery, PaymentIntentStatus, PaymentsQuery, RefundStatus, RefundsQuery, TopupIntentStatus, TopupsQuery,
} from './gql/graphql';
import {
  AuditDocument, BalancesDocument, CancelPaymentDocument, EventsDocument, PaymentDocument, PaymentsDocument, RefundDocument,
  RefundsDocument, TopupDocument, TopupsDocument, WebhookAttemptsDocument, WebhooksDocument,
} from './operations';
import { label, money, when } from './format';
import { Fields, ListState, Pager, Panel, Status, useAction, useApp, useLive, usePaged, useRecord, type Paged } from './ui';

const MOVEMENT_TYPES = ['topup_intent.succeeded', 'payment_intent.succeeded', 'payout_intent.*', 'refund.*'];

export function Balances() {
  const { api } = useApp();
  const record = useRecord(() => api.query(BalancesDocument, { types: MOVEMENT_TYPES }), 'balances');
  useLive((e) => {
    if (/^(topup_intent|payment_intent|payout_intent|refund)\./.test(e.type)) record.reload();
  });
  const d = record.data;
  return (
    <section aria-labelledby="balances-title">
      <h1 id="balances-title">Balances</h1>
      {record.error && <p class="error" role="alert">{record.error}</p>}
      {!d && record.loading && <p class="muted" role="status">Loading…</p>}
      {d && d.balances.length === 0 && <p class="muted" data-testid="empty">No balance yet: it appears with the first settled topup or payment.</p>}
      {d && d.balances.length > 0 && (
        <div class="cards" data-testid="balances">
          {d.balances.map((b) => (
            <article class="card" key={b.currency} aria-label={`${b.currency} balance`}>
              <h2>{b.currency}</h2>
              <Fields rows={[['Available', money(b.available, b.currency)], ['Pending', money(b.pending, b.currency)], ['Reserved', money(b.reserved, b.currency)], ['Updated', when(b.updatedAt)]]} />
            </article>
          ))}
        </div>
      )}
      {d && (
        <>
          <h2>Recent movements</h2>
          {d.events.nodes.length === 0 ? <p class="muted">No movements yet.</p> : (
            <div class="table-wrap">
              <table>
                <caption class="sr">Recent events that move money</caption>
                <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Record</th><th scope="col" class="num">Amount</th></tr></thead>
                <tbody>
                  {d.events.nodes.map((e) => (
                    <tr key={e.id}><td>{when(e.createdAt)}</td><td>{e.type}</td><td><code>{String(e.data.object.id ?? '')}</code></td><td class="num">{moneyOf(e.data.object)}</td></tr>
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

function moneyOf(o: Record<string, unknown>): string {
  return typeof o.amount === 'string' && typeof o.currency === 'string' ? money(o.amount, o.currency) : '';
}

/** A list of one resource with a status and a reference filter, and details beside it. */
function ResourceList<T extends { id: string; status: string; amount: string; currency: string; createdAt: string }>(props: {
  title: string; path: string; statuses: string[]; prefix: string; id?: string;
  load(after: string | null, filter: { status?: string[]; merchantReference?: string }): Promise<{ nodes: T[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } }>;
  reference(row: T): string;
  detail?: ComponentChildren;
}) {
  const [status, setStatus] = useState('');
  const [reference, setReference] = useState('');
  const [applied, setApplied] = useState({ status: '', reference: '' });
  const filter = { ...(applied.status ? { status: [applied.status] } : {}), ...(applied.reference ? { merchantReference: applied.reference } : {}) };
  const paged = usePaged<T>((after) => props.load(after, filter), JSON.stringify(filter));
  useLive((e) => {
    if (e.type.startsWith(props.prefix) && paged.page === 1) paged.refresh();
  });
  return (
    <div class={props.id ? 'split' : ''}>
      <section aria-labelledby="list-title">
        <h1 id="list-title">{props.title}</h1>
        <form class="filters" onSubmit={(e) => { e.preventDefault(); setApplied({ status, reference: reference.trim() }); }}>
          <label>Status
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">All</option>
              {props.statuses.map((s) => <option value={s} key={s}>{label(s)}</option>)}
            </select>
          </label>
          <label>Merchant reference<input value={reference} onInput={(e) => setReference(e.currentTarget.value)} /></label>
          <button type="submit">Apply</button>
        </form>
        <Rows paged={paged} empty={`No ${props.title.toLowerCase()} match.`} path={props.path} id={props.id} reference={props.reference} />
      </section>
      {props.id && props.detail}
    </div>
  );
}

function Rows<T extends { id: string; status: string; amount: string; currency: string; createdAt: string }>({ paged, empty, path, id, reference }: { paged: Paged<T>; empty: string; path: string; id?: string; reference(row: T): string }) {
  return (
    <ListState paged={paged} empty={empty}>
      <div class="table-wrap">
        <table data-testid={path}>
          <thead><tr><th scope="col">Reference</th><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col" class="wide">Created</th></tr></thead>
          <tbody>
            {paged.nodes.map((r) => (
              <tr key={r.id} class={r.id === id ? 'selected' : ''} data-testid={`row-${r.id}`}>
                <td><a href={`#/${path}/${r.id}`}>{reference(r) || r.id}</a></td>
                <td class="num">{money(r.amount, r.currency)}</td>
                <td><Status value={r.status} /></td>
                <td class="wide">{when(r.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paged={paged} />
    </ListState>
  );
}

/** The REST test helpers (test keys only), as buttons. */
function TestActions({ kind, id, actions, done }: { kind: string; id: string; actions: string[]; done(): void }) {
  const { api, test } = useApp();
  const action = useAction();
  if (!test || actions.length === 0) return null;
  return (
    <div class="test-actions" role="group" aria-label="Test mode helpers">
      <span class="muted">Test helpers:</span>
      {actions.map((a) => (
        <button type="button" key={a} disabled={action.busy} onClick={() => action.run(async () => { await api.testHelper(`${kind}/${id}/${a}`); done(); })}>{a}</button>
      ))}
      {action.error && <p class="error" role="alert">{action.error}</p>}
    </div>
  );
}

type PaymentRow = PaymentsQuery['paymentIntents']['nodes'][number];
export function Payments({ id }: { id?: string }) {
  const { api } = useApp();
  return (
    <ResourceList<PaymentRow> title="Payments" path="payments" prefix="payment_intent." id={id}
      statuses={['REQUIRES_ACTION', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']}
      load={async (after, f) => (await api.query(PaymentsDocument, { after, filter: { ...f, status: f.status as PaymentIntentStatus[] | undefined } })).paymentIntents}
      reference={(r) => r.merchantReference}
      detail={id && <PaymentDetail id={id} />} />
  );
}

function PaymentDetail({ id }: { id: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(PaymentDocument, { id }), id);
  const cancel = useAction();
  useLive((e) => { if (e.data.object.id === id || e.data.object.payment_intent === id) record.reload(); });
  const p = record.data?.paymentIntent;
  return (
    <Panel title={p ? `Payment ${p.merchantReference}` : 'Payment'} back="#/payments">
      {record.error && <p class="error" role="alert">{record.error}</p>}
      {p && (
        <>
          <Fields rows={[
            ['ID', <code>{p.id}</code>], ['Status', <Status value={p.status} />], ['Amount', money(p.amount, p.currency)],
            ['Refunded', p.amountRefunded !== '0' ? money(p.amountRefunded, p.currency) : null], ['Method', p.paymentMethod],
            ['Checkout', label(p.checkoutMode)], ['Processing because', p.processingReason], ['Next action', p.nextAction ? `${label(p.nextAction.type)} until ${when(p.nextAction.expiresAt)}` : null],
            ['Receipt', p.receipt ? `${p.receipt.receiptNumber} (${when(p.receipt.paidAt)})` : null],
            ['Failure', p.failureMessage], ['Created', when(p.createdAt)], ['Updated', when(p.updatedAt)],
          ]} />
          {p.refunds.nodes.length > 0 && (
            <><h3>Refunds</h3><ul>{p.refunds.nodes.map((r) => <li key={r.id}><a href={`#/refunds/${r.id}`}>{money(r.amount, r.currency)}</a> <Status value={r.status} /> {r.reason}</li>)}</ul></>
          )}
          {p.status === 'REQUIRES_ACTION' && (
            <div class="actions"><button type="button" disabled={cancel.busy} onClick={() => cancel.run(async () => { await api.mutate(CancelPaymentDocument, { id, reason: null }); record.reload(); })}>Cancel payment</button></div>
          )}
          {cancel.error && <p class="error" role="alert">{cancel.error}</p>}
          <TestActions kind="payment_intents" id={id} done={record.reload} actions={p.status === 'REQUIRES_ACTION' || p.status === 'PROCESSING' ? ['succeed', 'fail', 'expire'] : []} />
        </>
      )}
    </Panel>
  );
}

type TopupRow = TopupsQuery['topupIntents']['nodes'][number];
export function Topups({ id }: { id?: string }) {
  const { api } = useApp();
  return (
    <ResourceList<TopupRow> title="Topups" path="topups" prefix="topup_intent." id={id}
      statuses={['REQUIRES_ACTION', 'SUCCEEDED', 'FAILED', 'EXPIRED']}
      load={async (after, f) => (await api.query(TopupsDocument, { after, filter: { ...f, status: f.status as TopupIntentStatus[] | undefined } })).topupIntents}
      reference={(r) => r.merchantReference}
      detail={id && <TopupDetail id={id} />} />
  );
}

function TopupDetail({ id }: { id: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(TopupDocument, { id }), id);
  useLive((e) => { if (e.data.object.id === id) record.reload(); });
  const t = record.data?.topupIntent;
  const bank = t?.nextAction?.displayBankTransferInstructions;
  return (
    <Panel title={t ? `Topup ${t.merchantReference}` : 'Topup'} back="#/topups">
      {record.error && <p class="error" role="alert">{record.error}</p>}
      {t && (
        <>
          <Fields rows={[
            ['ID', <code>{t.id}</code>], ['Status', <Status value={t.status} />], ['Amount', money(t.amount, t.currency)],
            ['Transfer to', bank ? `${bank.bankName}, ${bank.accountName}, ${bank.accountNumber}, reference ${bank.reference}` : null],
            ['Failure', t.failureMessage], ['Created', when(t.createdAt)], ['Updated', when(t.updatedAt)],
          ]} />
          <TestActions kind="topup_intents" id={id} done={record.reload} actions={t.status === 'REQUIRES_ACTION' ? ['succeed', 'fail'] : []} />
        </>
      )}
    </Panel>
  );
}

type RefundRow = RefundsQuery['refunds']['nodes'][number];
export function Refunds({ id }: { id?: string }) {
  const { api } = useApp();
  return (
    <ResourceList<RefundRow> title="Refunds" path="refunds" prefix="refund." id={id}
      statuses={['PENDING', 'SUCCEEDED', 'FAILED']}
      load={async (after, f) => (await api.query(RefundsDocument, { after, filter: { ...f, status: f.status as RefundStatus[] | undefined } })).refunds}
      reference={(r) => r.merchantReference ?? ''}
      detail={id && <RefundDetail id={id} />} />
  );
}

function RefundDetail({ id }: { id: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(RefundDocument, { id }), id);
  useLive((e) => { if (e.data.object.id === id) record.reload(); });
  const r = record.data?.refund;
  return (
    <Panel title={r ? `Refund ${r.merchantReference ?? r.id}` : 'Refund'} back="#/refunds">
      {record.error && <p class="error" role="alert">{record.error}</p>}
      {r && (
        <>
          <Fields rows={[
            ['ID', <code>{r.id}</code>], ['Status', <Status value={r.status} />], ['Amount', money(r.amount, r.currency)],
            ['Payment', <a href={`#/payments/${r.paymentIntentId}`}>{r.paymentIntentId}</a>], ['Reason', r.reason],
            ['Failure', r.failureMessage], ['Created', when(r.createdAt)], ['Updated', when(r.updatedAt)],
          ]} />
          <TestActions kind="refunds" id={id} done={record.reload} actions={r.status === 'PENDING' ? ['succeed', 'fail'] : []} />
        </>
      )}
    </Panel>
  );
}

type EventRow = EventsQuery['events']['nodes'][number];
export function Events() {
  const { api } = useApp();
  const [types, setTypes] = useState('');
  const [applied, setApplied] = useState('');
  const typeList = applied.split(',').map((s) => s.trim()).filter(Boolean);
  const paged = usePaged<EventRow>(async (after) => (await api.query(EventsDocument, { after, filter: typeList.length ? { type: typeList } : null })).events, applied);
  const [open, setOpen] = useState<string | null>(null);
  useLive((e) => { if (paged.page === 1 && typeList.length === 0) paged.update((rows) => (rows.some((r) => r.id === e.id) ? rows : [e, ...rows])); });
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setApplied(types); }}>
        <label>Types (comma-separated; <code>payout_intent.*</code> works)<input value={types} onInput={(e) => setTypes(e.currentTarget.value)} /></label>
        <button type="submit">Apply</button>
      </form>
      <ListState paged={paged} empty="No events.">
        <ul class="events" data-testid="events">
          {paged.nodes.map((e) => (
            <li key={e.id}>
              <button type="button" class="link" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                <strong>{e.type}</strong> <code>{String(e.data.object.id ?? '')}</code> <span class="muted">{when(e.createdAt)}</span>
              </button>
              {open === e.id && <pre>{JSON.stringify(e.data.object, null, 2)}</pre>}
            </li>
          ))}
        </ul>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}

export function Webhooks({ id }: { id?: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(WebhooksDocument, {}), 'webhooks');
  const endpoints = record.data?.webhookEndpoints.nodes ?? [];
  return (
    <div class={id ? 'split' : ''}>
      <section aria-labelledby="webhooks-title">
        <h1 id="webhooks-title">Webhook endpoints</h1>
        {record.error && <p class="error" role="alert">{record.error}</p>}
        {!record.data && record.loading && <p class="muted" role="status">Loading…</p>}
        {record.data && endpoints.length === 0 && <p class="muted" data-testid="empty">No webhook endpoints. Create one with the API (createWebhookEndpoint).</p>}
        {endpoints.length > 0 && (
          <ul class="endpoints" data-testid="endpoints">
            {endpoints.map((w) => (
              <li key={w.id} class={w.id === id ? 'selected' : ''}>
                <a href={`#/webhooks/${w.id}`}>{w.url}</a> <Status value={w.status} />
                <div class="muted">{w.enabledEvents.join(', ')}{w.disabledReason ? ` — ${w.disabledReason}` : ''}</div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {id && <Attempts id={id} />}
    </div>
  );
}

function Attempts({ id }: { id: string }) {
  const { api } = useApp();
  const paged = usePaged(async (after) => (await api.query(WebhookAttemptsDocument, { id, after })).webhookAttempts, id);
  return (
    <Panel title="Delivery attempts" back="#/webhooks">
      <button type="button" onClick={paged.refresh}>Refresh</button>
      <ListState paged={paged} empty="No delivery attempts yet.">
        <div class="table-wrap">
          <table data-testid="attempts">
            <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Try</th><th scope="col">Answer</th><th scope="col" class="num">ms</th></tr></thead>
            <tbody>
              {paged.nodes.map((a) => (
                <tr key={a.id}><td>{when(a.createdAt)}</td><td><code>{a.eventId}</code></td><td>{a.attemptNumber}</td><td>{a.statusCode ?? a.error}</td><td class="num">{a.durationMs}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager paged={paged} />
      </ListState>
    </Panel>
  );
}

type AuditRow = AuditQuery['auditLog']['nodes'][number];
export function Audit() {
  const { api } = useApp();
  const [resource, setResource] = useState('');
  const [operation, setOperation] = useState('');
  const [applied, setApplied] = useState({ resourceId: '', operation: '' });
  const filter = { ...(applied.resourceId ? { resourceId: applied.resourceId } : {}), ...(applied.operation ? { operation: applied.operation } : {}) };
  const paged = usePaged<AuditRow>(async (after) => (await api.query(AuditDocument, { after, filter })).auditLog, JSON.stringify(filter));
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setApplied({ resourceId: resource.trim(), operation: operation.trim() }); }}>
        <label>Record id<input value={resource} onInput={(e) => setResource(e.currentTarget.value)} /></label>
        <label>Operation<input value={operation} placeholder="POST /v1/payout_intents/:id/cancel" onInput={(e) => setOperation(e.currentTarget.value)} /></label>
        <button type="submit">Apply</button>
        <button type="button" onClick={paged.refresh}>Refresh</button>
      </form>
      <ListState paged={paged} empty="No calls recorded.">
        <div class="table-wrap">
          <table data-testid="audit">
            <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col">Record</th><th scope="col">Status</th><th scope="col">Reason</th></tr></thead>
            <tbody>
              {paged.nodes.map((a) => (
                <tr key={a.id}><td>{when(a.createdAt)}</td><td><code>{a.operation}</code></td><td><code>{a.resourceId}</code></td><td>{a.statusCode}</td><td data-testid="audit-reason">{a.reason}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}
