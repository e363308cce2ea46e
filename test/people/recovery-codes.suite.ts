/**
 * New recovery codes: a member with an authenticator asks for them with a current code; the
 * earlier codes stop working and the new ones sign in (each once); a wrong code is refused and
 * changes nothing; without an authenticator there is nothing to regenerate.
 */
import { startServer, type TestServer } from '../helpers/server';
import { addMember, enrolTotp, signIn } from '../helpers/members';
import { totpCode } from '../../src/modules/people/credentials';

let srv: TestServer;
let merchantId: string;
const REGENERATE = 'mutation($c: String!) { regenerateRecoveryCodes(code: $c) { recoveryCodes } }';
const codeOf = (res: { body: { errors?: { extensions: { code: string } }[] } }) => res.body.errors?.[0]?.extensions.code;

beforeAll(async () => {
  srv = await startServer({ env: { REDIS_URL: '' } });
  merchantId = (await srv.app.auth.createMerchant(`Recovery ${process.pid}`)).id;
});
afterAll(async () => {
  await srv?.close();
});

test('new recovery codes replace the old ones, confirmed with a current code; a wrong code changes nothing', async () => {
  const member = await addMember(srv, merchantId, `rec.${process.pid}@example.com`, 'viewer');
  const { secret, recoveryCodes: old } = await enrolTotp(member);
  expect(codeOf(await member.gql(REGENERATE, { c: '000000' }))).toBe('unauthorized');
  // The old codes still work after the refused call: one of them confirms the regeneration.
  const fresh = await member.gql(REGENERATE, { c: old[0] });
  expect(fresh.body.errors).toBeUndefined();
  const codes = fresh.body.data.regenerateRecoveryCodes.recoveryCodes as string[];
  expect(codes).toHaveLength(10);
  expect(codes.some((c) => old.includes(c))).toBe(false);
  expect((await signIn(srv, member.email, undefined, old[1])).status).toBe(401);
  expect((await signIn(srv, member.email, undefined, codes[0])).status).toBe(200);
  expect((await signIn(srv, member.email, undefined, codes[0])).status).toBe(401);
  expect(secret).toBeTruthy();
  expect(totpCode(secret)).toMatch(/^\d{6}$/);
});

test('without an authenticator there are no recovery codes to regenerate', async () => {
  const member = await addMember(srv, merchantId, `none.${process.pid}@example.com`, 'viewer');
  expect(codeOf(await member.gql(REGENERATE, { c: '123456' }))).toBe('invalid_state');
});
