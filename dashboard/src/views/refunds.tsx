/** Refunds: the list, and a refund's details with the test helpers. */
import type { RefundStatus, RefundsQuery } from '../gql/graphql';
import { money, when } from '../format';
import { RefundDocument, RefundsDocument } from '../operations/refunds';
import { Fields, Panel, Status, useApp, useLive, useRecord } from '../ui';
import { ResourceList } from './resource-list';
import { TestActions } from './test-actions';

type RefundRow = NonNullable<RefundsQuery['refunds']>['nodes'][number];
export function Refunds({ id }: { id?: string }) {
  const { api } = useApp();
  return (
    <ResourceList<RefundRow>
      title="Refunds"
      path="refunds"
      prefix="refund."
      id={id}
      report="REFUNDS_ITEMIZED"
      statuses={['PENDING', 'SUCCEEDED', 'FAILED']}
      load={async (after, f) => (await api.query(RefundsDocument, { after, filter: { ...f, status: f.status as RefundStatus[] | undefined } })).refunds}
      reference={(r) => r.merchantReference ?? ''}
      detail={id && <RefundDetail id={id} />}
    />
  );
}

function RefundDetail({ id }: { id: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(RefundDocument, { id }), id);
  useLive((e) => {
    if (e.data.object.id === id) record.reload();
  });
  const r = record.data?.refund;
  return (
    <Panel title={r ? `Refund ${r.merchantReference ?? r.id}` : 'Refund'} back="#/refunds">
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {r && (
        <>
          <Fields
            rows={[
              ['ID', <code>{r.id}</code>],
              ['Status', <Status value={r.status} />],
              ['Amount', money(r.amountMoney)],
              ['Payment', <a href={`#/payments/${r.paymentIntentId}`}>{r.paymentIntentId}</a>],
              ['Reason', r.reason],
              ['Failure', r.failureMessage],
              ['Created', when(r.createdAt)],
              ['Updated', when(r.updatedAt)],
            ]}
          />
          <TestActions kind="refunds" id={id} done={record.reload} actions={r.status === 'PENDING' ? ['succeed', 'fail'] : []} />
        </>
      )}
    </Panel>
  );
}
