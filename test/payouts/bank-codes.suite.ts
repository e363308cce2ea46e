/** A payout's bank code must be one the service knows (src/domain/banks.ts): at create, in a batch's JSON rows and CSV lines, over GraphQL. */
import { startServer, TestServer } from '../helpers/server';
import { payoutBody, ref, type Client } from '../helpers/client';
import { BANK_CODES } from '../../src/domain/banks';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  c = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

const withBank = (bank_code: string) =>
  payoutBody({ recipient: { type: 'bank_account', bank_code, account_number: '1234567890', holder_name: 'Somchai Jaidee' } });
const MESSAGE = `The bank code is not supported: use one of ${BANK_CODES.join(', ')}.`;

test('an unknown bank code is refused at create, naming the field, and nothing is created', async () => {
  for (const code of ['ZZBANK', 'toString', '__proto__', 'KBANKX']) {
    const res = await c.post('/v1/payout_intents', withBank(code));
    expect([code, res.status, res.body.error]).toEqual([code, 400, { code: 'validation_error', param: 'recipient.bank_code', message: MESSAGE }]);
  }
  expect((await c.get('/v1/payout_intents')).body.data).toEqual([]);
  const known = await c.post('/v1/payout_intents', withBank(' kbank '));
  expect([known.status, known.body.recipient.bank_code]).toEqual([201, 'KBANK']);
  const gql = await c.gql(
    `mutation { createPayoutIntent(input: { amount: "100", currency: "THB", country: "TH", merchantReference: "${ref('g')}",
      recipient: { type: BANK_ACCOUNT, bankCode: "ZZBANK", accountNumber: "1234567890", holderName: "A B" } }) { id } }`,
  );
  expect(gql.body.errors?.[0]).toMatchObject({ message: MESSAGE, extensions: { code: 'validation_error' } });
});

test('a batch row with an unknown bank code is an invalid row, in JSON and in CSV', async () => {
  const json = await c.post('/v1/payout_batches', { items: [withBank('KBANK'), withBank('ZZBANK')] });
  expect(json.status).toBe(201);
  expect(json.body.status).toBe('invalid');
  expect(json.body.errors).toEqual([{ row: 2, param: 'recipient.bank_code', message: MESSAGE }]);
  const form = new FormData();
  const csv = `amount,currency,country,merchant_reference,bank_code,account_number,holder_name\n100,THB,TH,${ref('c')},ZZBANK,1234567890,A B\n`;
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'payouts.csv');
  const res = await fetch(`${c.baseUrl}/v1/payout_batches`, { method: 'POST', headers: { authorization: c.authorization! }, body: form });
  const body = (await res.json()) as { errors: unknown };
  expect(res.status).toBe(201);
  expect(body.errors).toEqual([{ row: 1, param: 'bank_code', message: MESSAGE }]);
});
