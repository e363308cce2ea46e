/**
 * The audit log: committed state-changing calls and team changes, each with who made it (a
 * member by email, an API key by name), filtered by who, record and operation. Rows wait for
 * the names, so a row never shows a key's id where its name belongs.
 */
import { useState } from 'preact/hooks';
import type { AuditQuery } from '../gql/graphql';
import { when } from '../format';
import { AuditActorsDocument, AuditDocument } from '../operations/audit';
import { ListState, Pager, Table, useApp, usePaged, useRecord } from '../ui';

type AuditRow = NonNullable<AuditQuery['auditLog']>['nodes'][number];

/** Team changes have no REST route: they are named by what they did. */
const TEAM_CHANGES: Record<string, string> = {
  inviteMember: 'Invited a member',
  issueSetupLink: 'Issued a new setup link',
  issuePasswordResetLink: 'Issued a password reset link',
  changeMemberRole: 'Changed a member’s role',
  removeMember: 'Removed a member',
};

export function Audit() {
  const { api, can } = useApp();
  const withKeys = can('api_keys');
  const actors = useRecord(() => api.query(AuditActorsDocument, { withKeys }), `actors-${withKeys}`);
  const keyNames = new Map((actors.data?.apiKeys ?? []).map((k) => [k.id, k.name ?? k.publicKey]));
  const emails = new Map((actors.data?.teamMembers ?? []).map((m) => [m.id, m.email]));
  const who = (a: AuditRow['actor']): string => {
    if (!a) return 'unknown';
    if (a.type === 'member') return a.email ?? a.id;
    return `API key ${keyNames.get(a.id) ?? a.id}`;
  };
  const [resource, setResource] = useState('');
  const [operation, setOperation] = useState('');
  const [actor, setActor] = useState('');
  const [applied, setApplied] = useState({ resourceId: '', operation: '', actor: '' });
  const filter = {
    ...(applied.resourceId ? { resourceId: applied.resourceId } : {}),
    ...(applied.operation ? { operation: applied.operation } : {}),
    ...(applied.actor ? { actor: applied.actor } : {}),
  };
  const paged = usePaged<AuditRow>(async (after) => (await api.query(AuditDocument, { after, filter })).auditLog, JSON.stringify(filter));
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ resourceId: resource.trim(), operation: operation.trim(), actor });
        }}
      >
        <label>
          Who
          <select value={actor} onChange={(e) => setActor(e.currentTarget.value)} data-testid="audit-actor">
            <option value="">Anyone</option>
            {actors.data?.teamMembers.map((m) => (
              <option key={m.id} value={m.id}>
                {m.email}
              </option>
            ))}
            {actors.data?.apiKeys?.map((k) => (
              <option key={k.id} value={k.id}>
                API key {k.name ?? k.publicKey}
              </option>
            ))}
          </select>
        </label>
        <label>
          Record id
          <input value={resource} onInput={(e) => setResource(e.currentTarget.value)} />
        </label>
        <label>
          Operation
          <input value={operation} placeholder="POST /v1/payout_intents/:id/cancel" onInput={(e) => setOperation(e.currentTarget.value)} />
        </label>
        <button type="submit">Apply</button>
        <button type="button" onClick={paged.refresh}>
          Refresh
        </button>
      </form>
      {actors.loading && !actors.data ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : (
        <ListState paged={paged} empty="No calls recorded.">
          <Table testId="audit" caption="Changes, newest first" head={['When', 'Who', 'Action', 'Record', ['Status', 'wide'], 'Reason']}>
            {paged.nodes.map((a) => (
              <tr key={a.id}>
                <td>{when(a.createdAt)}</td>
                <td data-testid="audit-actor-cell">{who(a.actor)}</td>
                <td>{TEAM_CHANGES[a.operation] ?? <code>{a.operation}</code>}</td>
                <td>
                  {a.resourceType && <span class="muted">{a.resourceType.replace(/_/g, ' ')} </span>}
                  {a.resourceType === 'member' && a.resourceId && emails.has(a.resourceId) ? emails.get(a.resourceId) : <code class="id">{a.resourceId}</code>}
                </td>
                <td class="wide">{a.statusCode}</td>
                <td data-testid="audit-reason">{a.reason}</td>
              </tr>
            ))}
          </Table>
          <Pager paged={paged} />
        </ListState>
      )}
    </section>
  );
}
