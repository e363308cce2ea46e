/** The audit log: committed state-changing calls, filtered by record and operation. */
import { useState } from 'preact/hooks';
import type { AuditQuery } from '../gql/graphql';
import { when } from '../format';
import { AuditDocument } from '../operations/audit';
import { ListState, Pager, Table, useApp, usePaged } from '../ui';

type AuditRow = AuditQuery['auditLog']['nodes'][number];
export function Audit() {
  const { api } = useApp();
  const [resource, setResource] = useState('');
  const [operation, setOperation] = useState('');
  const [applied, setApplied] = useState({ resourceId: '', operation: '' });
  const filter = {
    ...(applied.resourceId ? { resourceId: applied.resourceId } : {}),
    ...(applied.operation ? { operation: applied.operation } : {}),
  };
  const paged = usePaged<AuditRow>(async (after) => (await api.query(AuditDocument, { after, filter })).auditLog, JSON.stringify(filter));
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ resourceId: resource.trim(), operation: operation.trim() });
        }}
      >
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
      <ListState paged={paged} empty="No calls recorded.">
        <Table testId="audit" head={['When', 'Operation', 'Record', 'Status', 'Reason']}>
          {paged.nodes.map((a) => (
            <tr key={a.id}>
              <td>{when(a.createdAt)}</td>
              <td>
                <code>{a.operation}</code>
              </td>
              <td>
                <code>{a.resourceId}</code>
              </td>
              <td>{a.statusCode}</td>
              <td data-testid="audit-reason">{a.reason}</td>
            </tr>
          ))}
        </Table>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}
