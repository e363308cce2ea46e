/**
 * The QR image of `display_qr_code` is not stored (next-action.column.ts): the row keeps the
 * code's modules and the answers draw the same bytes again; migration 1733800000000 strips
 * the image from rows written before. Replays answer the bytes first sent.
 */
import { startServer, TestServer } from '../helpers/server';
import { paymentBody } from '../helpers/fixtures';
import { QrModules1733800000000 } from '../../src/db/migrations/1733800000000-QrModules';
import { qrSvgDataUrl, qrSvgDataUrlByLibrary, svgDataUrlFromModules, qrModules, modulesFromSvgDataUrl } from '../../src/modules/methods/qr';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
});
afterAll(async () => {
  await srv.close();
});

const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => srv.app.db.read(() => srv.app.db.ds.query(query, params));

test("the modules draw the library's image byte for byte, and are read back from it", () => {
  for (const text of ['x', '00020101021229370016A000000677010111011300669123456785802TH53037645406500.006304ABCD', 'p'.repeat(400)]) {
    const lib = qrSvgDataUrlByLibrary(text);
    expect(qrSvgDataUrl(text)).toBe(lib);
    expect(svgDataUrlFromModules(qrModules(text))).toBe(lib);
    expect(modulesFromSvgDataUrl(lib)).toBe(qrModules(text));
  }
  expect(modulesFromSvgDataUrl('data:image/png;base64,AAAA')).toBeNull();
});

test('a QR payment stores modules, not the image; GET, GraphQL and a replay answer the same bytes', async () => {
  const c = await srv.merchant();
  const body = paymentBody({ payment_method: 'promptpay' });
  const key = `qr-${Date.now()}`;
  const created = await c.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(created.status).toBe(201);
  const na = created.body.next_action;
  expect(na.type).toBe('display_qr_code');
  expect(Object.keys(na.display_qr_code)).toEqual(['data', 'image_url_svg']);
  expect(na.display_qr_code.image_url_svg).toBe(qrSvgDataUrlByLibrary(na.display_qr_code.data));

  const [row] = await sql<{ next_action: string }>('SELECT next_action FROM payment_intents WHERE id = ?', [created.body.id]);
  expect(row.next_action).not.toContain('image_url_svg');
  expect(row.next_action.length).toBeLessThan(2000);
  expect(JSON.parse(row.next_action).display_qr_code.qr_modules).toBe(qrModules(na.display_qr_code.data));

  const got = await c.get(`/v1/payment_intents/${created.body.id}`);
  expect(got.text).toBe(created.text);
  const replay = await c.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).toBe(created.text);
  const gql = await c.post('/graphql', {
    query: `{ paymentIntent(id: "${created.body.id}") { nextAction { displayQrCode { data imageUrlSvg } } } }`,
  });
  expect(gql.body.data.paymentIntent.nextAction.displayQrCode).toEqual({
    data: na.display_qr_code.data,
    imageUrlSvg: na.display_qr_code.image_url_svg,
  });
});

test('migration 1733800000000 strips stored images it can draw again, and down restores them', async () => {
  const c = await srv.merchant();
  const created = await c.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }), {
    idempotencyKey: `qr-m-${Date.now()}`,
  });
  const id = created.body.id;
  const migration = new QrModules1733800000000();
  const runner = srv.app.db.ds.createQueryRunner();
  try {
    await migration.down(runner);
    const [before] = await sql<{ next_action: string }>('SELECT next_action FROM payment_intents WHERE id = ?', [id]);
    expect(JSON.parse(before.next_action)).toEqual(created.body.next_action);
    expect(before.next_action).toBe(JSON.stringify(created.body.next_action));
    expect((await c.get(`/v1/payment_intents/${id}`)).text).toBe(created.text);
    await migration.up(runner);
  } finally {
    await runner.release();
  }
  const [after] = await sql<{ next_action: string }>('SELECT next_action FROM payment_intents WHERE id = ?', [id]);
  expect(after.next_action).not.toContain('image_url_svg');
  expect((await c.get(`/v1/payment_intents/${id}`)).text).toBe(created.text);
});
