/** Payout batches from CSV files: 5,000 rows with Thai names; every row error reported at once; the file's limits. */
import { startServer, TestServer } from '../helpers/server';
import { ref, type Client, type Res } from '../helpers/client';
import { balanceOf, fundedMerchant } from '../helpers/fixtures';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const HEADER = 'amount,currency,country,merchant_reference,bank_code,account_number,holder_name';
const THAI = ['สมชาย ใจดี', 'สมหญิง รักไทย', 'ประยุทธ์ มั่นคง', 'กนกวรรณ ศรีสุข'];

function csv(rows: number, line: (i: number) => string = (i) => `100,THB,TH,${ref(`csv${i}`)},KBANK,12345678${i % 10}0,"${THAI[i % THAI.length]}"`): string {
  return [HEADER, ...Array.from({ length: rows }, (_, i) => line(i))].join('\r\n') + '\r\n';
}

async function upload(c: Client, text: string | Buffer, idempotencyKey?: string, field = 'file'): Promise<Res> {
  const form = new FormData();
  form.append(field, new Blob([text], { type: 'text/csv' }), 'payouts.csv');
  const headers: Record<string, string> = { authorization: c.authorization! };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(`${c.baseUrl}/v1/payout_batches`, { method: 'POST', headers, body: form });
  const body = await res.text();
  return { status: res.status, headers: res.headers, text: body, body: JSON.parse(body) };
}

test('a 5,000-row CSV with Thai names is one batch; the same file again creates nothing twice', async () => {
  const c = await fundedMerchant(srv, '1000000');
  const file = '\uFEFF' + csv(5000);
  const created = await upload(c, file, 'csv-5000');
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: 'requires_approval', item_count: 5000, totals: [{ currency: 'THB', amount: '500000' }], errors: [] });
  expect(await balanceOf(c)).toEqual({ available: '500000', pending: '0', reserved: '500000' });
  const replay = await upload(c, file, 'csv-5000');
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const again = await upload(c, file);
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(created.body.id);

  // How long it takes is the bench's to say (BENCH_ONLY=batch), not a test's.
  const approved = await c.post(`/v1/payout_batches/${created.body.id}/approve`);
  expect(approved.status).toBe(202);
  const page = await c.get(`/v1/payout_batches/${created.body.id}/items?limit=100`);
  expect(page.body.data).toHaveLength(100);
  expect(page.body.has_more).toBe(true);
  expect(THAI).toContain(page.body.data[0].recipient.holder_name);
  const byBatch = await c.get(`/v1/payout_intents?payout_batch=${created.body.id}&status=processing&limit=1`);
  expect(byBatch.body.data[0].payout_batch).toBe(created.body.id);
  expect(await balanceOf(c)).toEqual({ available: '500000', pending: '0', reserved: '500000' });
});

test('errors on rows 2, 999 and 5,000 are all reported, named by column, and nothing is created', async () => {
  const c = await fundedMerchant(srv, '1000000');
  const bad: Record<number, string> = {
    1: `abc,THB,TH,${ref('r2')},KBANK,1234567890,สมชาย ใจดี`,
    998: `100,THB,TH,${ref('r999')},KBANK,12,สมชาย ใจดี`,
    4999: `100,THB,TH,${ref('r5000')},KB@NK,1234567890,สมชาย ใจดี`,
  };
  const res = await upload(
    c,
    csv(5000, (i) => bad[i] ?? `100,THB,TH,${ref(`e${i}`)},KBANK,1234567890,สมชาย ใจดี`),
  );
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('invalid');
  expect(res.body.item_count).toBe(5000);
  expect(res.body.errors.map((e: any) => [e.row, e.param])).toEqual([
    [2, 'amount'],
    [999, 'account_number'],
    [5000, 'bank_code'],
  ]);
  expect(await balanceOf(c)).toEqual({ available: '1000000', pending: '0', reserved: '0' });
  expect((await c.get('/v1/payout_intents')).body.data).toEqual([]);
  expect((await c.get('/v1/payout_batches/' + res.body.id)).body.errors).toHaveLength(3);
});

test('files that are not a batch are refused with param file', async () => {
  const c = await srv.merchant();
  for (const [text, field] of [
    ['amount,currency\n1,THB\n', 'file'],
    [HEADER + '\n', 'file'],
    [csv(5001), 'file'],
    [csv(1), 'document'],
    [Buffer.from([0x61, 0xff, 0xfe, 0x0a]), 'file'],
  ] as const) {
    const res = await upload(c, text, undefined, field);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'file' });
  }
  const big = await upload(c, HEADER + '\n' + 'x'.repeat(3 * 1024 * 1024));
  expect(big.status).toBe(413);
  expect(big.body.error.code).toBe('payload_too_large');
});

/** A multipart body made by hand: each part's field name, content type and content. */
async function uploadParts(c: Client, parts: { field: string; type?: string; text: string | Buffer }[]): Promise<Res> {
  const form = new FormData();
  for (const p of parts) {
    if (p.type === undefined) form.append(p.field, String(p.text));
    else form.append(p.field, new Blob([p.text], { type: p.type }), 'payouts.csv');
  }
  const res = await fetch(`${c.baseUrl}/v1/payout_batches`, { method: 'POST', headers: { authorization: c.authorization! }, body: form });
  const body = await res.text();
  return { status: res.status, headers: res.headers, text: body, body: JSON.parse(body) };
}

test('2 MiB of blank lines is refused at the row limit while /healthz keeps answering', async () => {
  const c = await srv.merchant();
  const file = HEADER + '\n' + '\n'.repeat(2 * 1024 * 1024 - HEADER.length - 200);
  await (await fetch(`${srv.url}/healthz`)).arrayBuffer(); // the connection is open before the clock starts
  const latencies: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done || latencies.length < 20) {
      const started = performance.now();
      const res = await fetch(`${srv.url}/healthz`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      latencies.push(performance.now() - started);
    }
  })();
  const started = performance.now();
  const res = await upload(c, file).finally(() => {
    done = true;
  });
  const uploadMs = performance.now() - started;
  await probe;
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'file' });
  expect(res.body.error.message).toContain('at most 5000');
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
  console.log(
    `2 MiB of newlines: upload answered in ${uploadMs.toFixed(0)} ms; /healthz p99 ${p99.toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms over ${sorted.length} probes`,
  );
  // The target is p99 < 100 ms on a quiet machine; on a shared one a stall shows as seconds
  // (the whole-file parse kept /healthz waiting about 20 s for 200 KB).
  expect(sorted[sorted.length - 1]).toBeLessThan(2000);
});

test('the upload takes one part, the field file, with a CSV content type', async () => {
  const c = await fundedMerchant(srv, '1000000');
  const good = csv(1);
  for (const parts of [
    [{ field: 'file', type: 'image/png', text: good }],
    [{ field: 'file', type: 'application/json', text: good }],
    [
      { field: 'file', type: 'text/csv', text: good },
      { field: 'file', type: 'text/csv', text: good },
    ],
    [
      { field: 'file', type: 'text/csv', text: good },
      { field: 'note', text: 'x' },
    ],
    [
      { field: 'note', text: 'x' },
      { field: 'file', type: 'text/csv', text: good },
    ],
  ]) {
    const res = await uploadParts(c, parts);
    expect([res.status, res.body.error]).toEqual([400, expect.objectContaining({ code: 'validation_error', param: 'file' })]);
  }
  expect((await c.get('/v1/payout_batches')).body.data).toEqual([]);
  for (const type of ['text/csv; charset=utf-8', 'application/vnd.ms-excel', 'text/plain']) {
    const res = await uploadParts(c, [{ field: 'file', type, text: csv(1) }]);
    expect([type, res.status]).toEqual([type, 201]);
  }
});
