/** Topup intents: the list, and a topup's details with its transfer instructions and the test helpers. */
import type { TopupIntentStatus, TopupsQuery } from '../gql/graphql';
import { money, when } from '../format';
import { TopupDocument, TopupsDocument } from '../operations/topups';
import { Fields, Panel, Status, useApp, useLive, useRecord } from '../ui';
import { ResourceList } from './resource-list';
import { TestActions } from './test-actions';

type TopupRow = NonNullable<TopupsQuery['topupIntents']>['nodes'][number];
export function Topups({ id }: { id?: string }) {
  const { api } = useApp();
  return (
    <ResourceList<TopupRow>
      title="Topups"
      path="topups"
      prefix="topup_intent."
      id={id}
      statuses={['REQUIRES_ACTION', 'SUCCEEDED', 'FAILED', 'EXPIRED']}
      load={async (after, f) =>
        (await api.query(TopupsDocument, { after, filter: { ...f, status: f.status as TopupIntentStatus[] | undefined } })).topupIntents
      }
      reference={(r) => r.merchantReference}
      detail={id && <TopupDetail id={id} />}
    />
  );
}

function TopupDetail({ id }: { id: string }) {
  const { api } = useApp();
  const record = useRecord(() => api.query(TopupDocument, { id }), id);
  useLive((e) => {
    if (e.data.object.id === id) record.reload();
  });
  const t = record.data?.topupIntent;
  const bank = t?.nextStep?.__typename === 'DisplayBankTransferInstructionsAction' ? t.nextStep.displayBankTransferInstructions : undefined;
  return (
    <Panel title={t ? `Topup ${t.merchantReference}` : 'Topup'} back="#/topups">
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {t && (
        <>
          <Fields
            rows={[
              ['ID', <code>{t.id}</code>],
              ['Status', <Status value={t.status} />],
              ['Amount', money(t.amountMoney)],
              ['Transfer to', bank ? `${bank.bankName}, ${bank.accountName}, ${bank.accountNumber}, reference ${bank.reference}` : null],
              ['Failure', t.failureMessage],
              ['Created', when(t.createdAt)],
              ['Updated', when(t.updatedAt)],
            ]}
          />
          <TestActions kind="topup_intents" id={id} done={record.reload} actions={t.status === 'REQUIRES_ACTION' ? ['succeed', 'fail'] : []} />
        </>
      )}
    </Panel>
  );
}
