/** Webhook endpoints, and an endpoint's delivery attempts. */
import { when } from '../format';
import { WebhookAttemptsDocument, WebhooksDocument } from '../operations/webhooks';
import { ListState, Pager, Panel, Status, Table, useApp, usePaged, useRecord } from '../ui';

export function Webhooks({ id }: { id?: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(WebhooksDocument, {}), 'webhooks');
  const endpoints = record.data?.webhookEndpoints.nodes ?? [];
  return (
    <div class={id ? 'split' : ''}>
      <section aria-labelledby="webhooks-title">
        <h1 id="webhooks-title">Webhook endpoints</h1>
        {record.error && (
          <p class="error" role="alert">
            {record.error}
          </p>
        )}
        {!record.data && record.loading && (
          <p class="muted" role="status">
            Loading…
          </p>
        )}
        {record.data && endpoints.length === 0 && (
          <p class="muted" data-testid="empty">
            No webhook endpoints. Create one with the API (createWebhookEndpoint).
          </p>
        )}
        {endpoints.length > 0 && (
          <ul class="endpoints" data-testid="endpoints">
            {endpoints.map((w) => (
              <li key={w.id} class={w.id === id ? 'selected' : ''}>
                <a href={`#/webhooks/${w.id}`}>{w.url}</a> <Status value={w.status} />
                <div class="muted">
                  {w.enabledEvents.join(', ')}
                  {w.disabledReason ? ` — ${w.disabledReason}` : ''}
                </div>
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
      <button type="button" onClick={paged.refresh}>
        Refresh
      </button>
      <ListState paged={paged} empty="No delivery attempts yet.">
        <Table testId="attempts" head={['When', 'Event', 'Try', 'Answer', ['ms', 'num']]}>
          {paged.nodes.map((a) => (
            <tr key={a.id}>
              <td>{when(a.createdAt)}</td>
              <td>
                <code>{a.eventId}</code>
              </td>
              <td>{a.attemptNumber}</td>
              <td>{a.statusCode ?? a.error}</td>
              <td class="num">{a.durationMs}</td>
            </tr>
          ))}
        </Table>
        <Pager paged={paged} />
      </ListState>
    </Panel>
  );
}
