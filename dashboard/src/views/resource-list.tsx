/** The list view that payments, topups and refunds share; the payouts view has its own (it updates rows in place). */
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { ReportType } from '../gql/graphql';
import { label, money, when, type MoneyParts } from '../format';
import { ListState, type Paged, Pager, Status, Table, useLive, usePaged } from '../ui';
import { ExportCsv, intervalFilter, IntervalFields, NO_INTERVAL, type Interval } from './export-csv';

type Row = { id: string; status: string; amountMoney: MoneyParts; createdAt: string };

/** A list of one resource with status, reference, interval and currency filters, details beside it, and Export CSV when it has a report. */
export function ResourceList<T extends Row>(props: {
  title: string;
  path: string;
  statuses: string[];
  prefix: string;
  id?: string;
  report?: ReportType;
  load(
    after: string | null,
    filter: { status?: string[]; merchantReference?: string } & ReturnType<typeof intervalFilter>,
  ): Promise<{ nodes: T[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } }>;
  reference: (row: T) => string;
  detail?: ComponentChildren;
}) {
  const [status, setStatus] = useState('');
  const [reference, setReference] = useState('');
  const [range, setRange] = useState<Interval>(NO_INTERVAL);
  const [applied, setApplied] = useState({ status: '', reference: '', interval: range });
  const filter = {
    ...(applied.status ? { status: [applied.status] } : {}),
    ...(applied.reference ? { merchantReference: applied.reference } : {}),
    ...intervalFilter(applied.interval),
  };
  const paged = usePaged<T>((after) => props.load(after, filter), JSON.stringify(filter));
  useLive((e) => {
    if (e.type.startsWith(props.prefix) && paged.page === 1) paged.refresh();
  });
  return (
    <div class={props.id ? 'split' : ''}>
      <section aria-labelledby="list-title">
        <h1 id="list-title">{props.title}</h1>
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            setApplied({ status, reference: reference.trim(), interval: range });
          }}
        >
          <label>
            Status
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              <option value="">All</option>
              {props.statuses.map((s) => (
                <option value={s} key={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Merchant reference
            <input value={reference} onInput={(e) => setReference(e.currentTarget.value)} />
          </label>
          <IntervalFields value={range} onChange={setRange} />
          <button type="submit">Apply</button>
        </form>
        {props.report && <ExportCsv reportType={props.report} interval={applied.interval} ignored="status and reference" />}
        <Rows paged={paged} empty={`No ${props.title.toLowerCase()} match.`} path={props.path} id={props.id} reference={props.reference} />
      </section>
      {props.id && props.detail}
    </div>
  );
}

function Rows<T extends Row>({
  paged,
  empty,
  path,
  id,
  reference,
}: {
  paged: Paged<T>;
  empty: string;
  path: string;
  id?: string;
  reference: (row: T) => string;
}) {
  return (
    <ListState paged={paged} empty={empty}>
      <Table testId={path} head={['Reference', ['Amount', 'num'], 'Status', ['Created', 'wide']]}>
        {paged.nodes.map((r) => (
          <tr key={r.id} class={r.id === id ? 'selected' : ''} data-testid={`row-${r.id}`}>
            <td>
              <a href={`#/${path}/${r.id}`}>{reference(r) || r.id}</a>
            </td>
            <td class="num">{money(r.amountMoney)}</td>
            <td>
              <Status value={r.status} />
            </td>
            <td class="wide">{when(r.createdAt)}</td>
          </tr>
        ))}
      </Table>
      <Pager paged={paged} />
    </ListState>
  );
}
