/**
 * The overview the dashboard lands on: for a period (this month by default; last month, last
 * 7 days), per currency, the gross volume, fees, refunds, net and payouts, and a chart of the
 * gross volume and net per day. The chart (chart.js on a canvas) is an image with a summary
 * as its label, and its text alternative is a table of the same figures. It reloads when a
 * payment settles, a refund or a payout moves (the live stream).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import type { OverviewPeriod, OverviewQuery } from '../gql/graphql';
import { money } from '../format';
import { OverviewDocument } from '../operations/overview';
import { Fields, Table, useApp, useLive, useRecord } from '../ui';

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Legend, Tooltip);

type Currency = NonNullable<OverviewQuery['overview']>['currencies'][number];

const PERIODS: [OverviewPeriod, string][] = [
  ['THIS_MONTH', 'This month'],
  ['LAST_MONTH', 'Last month'],
  ['LAST_7_DAYS', 'Last 7 days'],
];

/** "2026-12-06" as "6 Dec" (UTC: the days are UTC days). */
const dayLabel = (date: string): string => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** The events that change the figures: a payment settles, a refund or a payout moves. */
const MOVES = /^(payment_intent\.succeeded|refund\.|payout_intent\.)/;

export function Overview() {
  const { api } = useApp();
  const [period, setPeriod] = useState<OverviewPeriod>('THIS_MONTH');
  const record = useRecord(() => api.query(OverviewDocument, { period }), `overview-${period}`);
  useLive((e) => {
    if (MOVES.test(e.type)) record.reload();
  });
  const o = record.data?.overview;
  const name = PERIODS.find(([p]) => p === period)![1].toLowerCase();
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <div class="filters overview-period">
        <label>
          Period
          <select value={period} onChange={(e) => setPeriod(e.currentTarget.value as OverviewPeriod)} data-testid="period">
            {PERIODS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </label>
      </div>
      {record.error && (
        <p class="error" role="alert">
          {record.error}{' '}
          <button type="button" onClick={record.reload}>
            Retry
          </button>
        </p>
      )}
      {!o && record.loading && (
        <p class="muted" role="status">
          Loading…
        </p>
      )}
      {o && o.currencies.length === 0 && (
        <p class="muted" data-testid="overview-empty">
          Nothing moved {name}: the figures appear with the first settled payment.
        </p>
      )}
      {o?.currencies.map((c) => (
        <CurrencyOverview key={c.currency} c={c} period={name} />
      ))}
    </section>
  );
}

function CurrencyOverview({ c, period }: { c: Currency; period: string }) {
  const id = `overview-${c.currency}`;
  return (
    <article class="overview" aria-labelledby={id} data-testid={id}>
      <h2 id={id}>
        {c.currency} {period}
      </h2>
      <Fields
        rows={[
          ['Gross volume', <span data-testid="gross">{money(c.grossMoney)}</span>],
          ['Fees', <span data-testid="fees">{money(c.feesMoney)}</span>],
          ['Refunds', <span data-testid="refunds">{money(c.refundsMoney)}</span>],
          ['Net', <span data-testid="net">{money(c.netMoney)}</span>],
          ['Payouts', <span data-testid="payouts">{money(c.payoutsMoney)}</span>],
        ]}
      />
      <DayChart c={c} />
      <details class="figures">
        <summary>Figures by day, as a table</summary>
        <Table
          testId="days"
          caption={`${c.currency} by UTC day, oldest first`}
          head={['Day', ['Gross', 'num'], ['Fees', 'num'], ['Refunds', 'num'], ['Net', 'num'], ['Payouts', 'num']]}
        >
          {c.days.map((d) => (
            <tr key={d.date}>
              <td>{dayLabel(d.date)}</td>
              <td class="num">{money(d.grossMoney)}</td>
              <td class="num">{money(d.feesMoney)}</td>
              <td class="num">{money(d.refundsMoney)}</td>
              <td class="num">{money(d.netMoney)}</td>
              <td class="num">{money(d.payoutsMoney)}</td>
            </tr>
          ))}
        </Table>
      </details>
    </article>
  );
}

/** What the chart shows, said in words: its aria-label. */
export function chartSummary(c: Currency): string {
  const days = c.days;
  if (days.length === 0) return `${c.currency}: no days in this period.`;
  // The busiest day by gross volume, compared as decimal strings (never as a number).
  const busiest = days.reduce((best, d) => (compareDecimal(d.grossMoney.decimal, best.grossMoney.decimal) > 0 ? d : best), days[0]);
  const span = `${dayLabel(days[0].date)} to ${dayLabel(days[days.length - 1].date)}`;
  const peak =
    compareDecimal(busiest.grossMoney.decimal, '0') > 0 ? `; busiest day ${dayLabel(busiest.date)}, ${money(busiest.grossMoney)} gross` : '; no payments';
  return `Chart of gross volume and net per day in ${c.currency}, ${span}: gross ${money(c.grossMoney)}, net ${money(c.netMoney)} in total${peak}.`;
}

/** Compares two decimal strings of the same exponent (as Money gives them) without making numbers of them. */
function compareDecimal(a: string, b: string): number {
  const neg = (s: string) => s.startsWith('-');
  if (neg(a) !== neg(b)) return neg(a) ? -1 : 1;
  const digits = (s: string) =>
    s
      .replace(/^-/, '')
      .replace('.', '')
      .replace(/^0+(?=\d)/, '');
  const [x, y] = [digits(a), digits(b)];
  const cmp = x.length !== y.length ? x.length - y.length : x < y ? -1 : x > y ? 1 : 0;
  return neg(a) ? -cmp : cmp;
}

/** The chart itself. chart.js draws numbers: the decimals become numbers here, for drawing only. */
function DayChart({ c }: { c: Currency }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const labels = c.days.map((d) => dayLabel(d.date));
  const gross = c.days.map((d) => Number(d.grossMoney.decimal));
  const net = c.days.map((d) => Number(d.netMoney.decimal));
  useEffect(() => {
    if (!canvas.current) return;
    const chart0 = new Chart(canvas.current, {
      type: 'line',
      data: {
        labels,
        datasets: [
          { label: `Gross (${c.currency})`, data: gross, borderColor: '#0a58ca', backgroundColor: '#0a58ca', pointRadius: 2 },
          { label: `Net (${c.currency})`, data: net, borderColor: '#116329', backgroundColor: '#116329', borderDash: [6, 3], pointRadius: 2 },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true } },
        plugins: { legend: { labels: { color: '#1b1f24' } } },
      },
    });
    chart.current = chart0;
    return () => {
      chart0.destroy();
      chart.current = null;
    };
  }, []);
  // A reload updates the chart in place.
  useEffect(() => {
    const ch = chart.current;
    if (!ch) return;
    ch.data.labels = labels;
    ch.data.datasets[0].data = gross;
    ch.data.datasets[1].data = net;
    ch.update();
  }, [labels.join(), gross.join(), net.join()]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={chartSummary(c)} data-testid="chart">
        {/* Fallback content for browsers without canvas: the table below has the same figures. */}
        Gross volume and net per day; the figures are in the table below.
      </canvas>
    </div>
  );
}
