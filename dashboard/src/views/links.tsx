/** Payment links: list with status and payment counts, create (with a preview of the payer's page), copy, QR code (shown and downloaded), activate / deactivate. */
import { useState } from 'preact/hooks';
import type { LinkFieldsFragment } from '../gql/graphql';
import { money, when } from '../format';
import { PaymentLinkDocument, PaymentLinksDocument, UpdatePaymentLinkDocument } from '../operations/links';
import { Fields, ListState, Pager, Panel, Status, Table, useAction, useApp, useLive, usePaged, useRecord } from '../ui';
import { exponentsOf } from './amount';
import { LinkForm } from './link-form';

type Link = LinkFieldsFragment;

/** active, inactive (deactivated), expired (past expiresAt) or completed (its payments taken). */
export function linkStatus(l: Link, now = Date.now()): string {
  if (!l.active) return 'INACTIVE';
  if (l.completionLimit !== null && l.completedCount >= l.completionLimit) return 'COMPLETED';
  if (!l.reusable && l.completedCount > 0) return 'COMPLETED';
  if (l.expiresAt && new Date(l.expiresAt).getTime() <= now) return 'EXPIRED';
  return 'ACTIVE';
}

export function linkAmount(l: Link): string {
  if (l.amountMoney) return money(l.amountMoney);
  if (l.customerChooses) return `${money(l.customerChooses.minimumMoney)} – ${money(l.customerChooses.maximumMoney)}`;
  return '';
}

/** Completed payments, and the limit when there is one ("2 of 5"). */
export function linkCount(l: Link): string {
  return `${l.completedCount}${l.completionLimit === null ? '' : ` of ${l.completionLimit}`}`;
}

export function PaymentLinks({ id }: { id?: string }) {
  const { api, can } = useApp();
  const [exponents, setExponents] = useState(new Map<string, number>());
  const [creating, setCreating] = useState(false);
  const paged = usePaged<Link>(async (after) => {
    const r = await api.query(PaymentLinksDocument, { after });
    setExponents(exponentsOf(r.balances));
    return r.paymentLinks;
  }, 'links');
  useLive((e) => {
    if (e.type.startsWith('payment_link.') || e.type.startsWith('payment_intent.succeeded')) paged.refresh();
  });
  // A link not on this page (an address opened directly) is read on its own.
  const listed = paged.nodes.find((l) => l.id === id);
  const single = useRecord(async () => (id && !listed ? (await api.query(PaymentLinkDocument, { id })).paymentLink : null), `${id}:${Boolean(listed)}`);
  const selected = listed ?? single.data ?? undefined;
  return (
    <div class={id ? 'split' : ''}>
      <section aria-labelledby="links-title">
        <h1 id="links-title">Payment links</h1>
        {can('payment_links:write') &&
          (creating ? (
            <LinkForm
              exponents={exponents}
              onDone={(link) => {
                setCreating(false);
                if (link) {
                  paged.update((rows) => [link, ...rows.filter((r) => r.id !== link.id)]);
                  location.hash = `#/links/${link.id}`;
                }
              }}
            />
          ) : (
            <div class="actions">
              <button type="button" class="primary" onClick={() => setCreating(true)} data-testid="new-link">
                New payment link
              </button>
            </div>
          ))}
        <ListState paged={paged} empty="No payment links yet.">
          <Table
            testId="links"
            caption="Payment links, newest first"
            head={['Description', ['Amount', 'num'], ['Payments', 'num'], 'Status', ['Created', 'wide']]}
          >
            {paged.nodes.map((l) => (
              <tr key={l.id} data-testid={`link-${l.id}`} data-status={linkStatus(l)} class={l.id === id ? 'selected' : ''}>
                <td>
                  <a href={`#/links/${l.id}`} aria-current={l.id === id ? 'true' : undefined}>
                    {l.description || l.id}
                  </a>
                </td>
                <td class="num">{linkAmount(l)}</td>
                <td class="num" data-testid="link-count">
                  {linkCount(l)}
                </td>
                <td>
                  <Status value={linkStatus(l)} />
                </td>
                <td class="wide">{when(l.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <Pager paged={paged} />
        </ListState>
      </section>
      {id && selected && (
        <LinkDetail
          link={selected}
          onChanged={(link) => {
            paged.update((rows) => rows.map((r) => (r.id === link.id ? link : r)));
            if (!listed) single.reload();
          }}
        />
      )}
    </div>
  );
}

function LinkDetail({ link, onChanged }: { link: Link; onChanged: (l: Link) => void }) {
  const { api, can } = useApp();
  const action = useAction();
  const [copied, setCopied] = useState(false);
  const copy = () =>
    action.run(async () => {
      await navigator.clipboard.writeText(link.url);
      setCopied(true);
    });
  const qr = `/v1/payment_links/${encodeURIComponent(link.id)}/qr.svg`;
  const setActive = (active: boolean) =>
    action.run(async () => {
      const r = await api.mutate(UpdatePaymentLinkDocument, { id: link.id, input: { active } });
      if (r.updatePaymentLink) onChanged(r.updatePaymentLink);
    });
  return (
    <Panel title={link.description ? `Link: ${link.description}` : 'Payment link'} back="#/links">
      <Fields
        rows={[
          ['ID', <code>{link.id}</code>],
          ['Status', <Status value={linkStatus(link)} />],
          ['Amount', linkAmount(link)],
          ['Use', link.reusable ? 'Reusable' : 'Single use'],
          ['Completed payments', linkCount(link)],
          ['Expires', link.expiresAt ? when(link.expiresAt) : 'Never'],
          ['Country', link.country],
        ]}
      />
      <label for="link-url">Link</label>
      <div class="copy-row">
        <input id="link-url" readOnly value={link.url} data-testid="link-url" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()} data-testid="copy-link">
          Copy link
        </button>
      </div>
      <p class="muted" role="status" aria-live="polite">
        {copied ? 'Copied.' : ''}
      </p>
      <img class="qr" src={qr} alt="QR code of the payment link" data-testid="link-qr" />
      <a href={qr} download={`${link.id}-qr.svg`} data-testid="download-qr">
        Download QR code (SVG)
      </a>
      {can('payment_links:write') && (
        <div class="actions">
          {link.active ? (
            <button type="button" class="danger" onClick={() => void setActive(false)} disabled={action.busy} data-testid="deactivate">
              Deactivate
            </button>
          ) : (
            <button type="button" onClick={() => void setActive(true)} disabled={action.busy} data-testid="activate">
              Activate
            </button>
          )}
        </div>
      )}
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
    </Panel>
  );
}
