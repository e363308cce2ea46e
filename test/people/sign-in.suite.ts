/**
 * People and sign-in end to end, on a real server and database: setup links, the session
 * cookie and its flags, cookie authentication on REST and GraphQL, cross-site refusals,
 * session fixation, the same answer for an unknown email and a wrong password (timed and
 * reported, not asserted), the lock after repeated failures told at the next sign-in, and
 * TOTP with recovery codes.
 */
import { performance } from 'node:perf_hooks';
import { startServer, type TestServer } from '../helpers/server';
import { addMember, cookieOf, dashboardPost, enrolTotp, MemberClient, PASSWORD, signedInAs, signIn } from '../helpers/members';
import { totpCode } from '../../src/modules/people/credentials';

let srv: TestServer;
let merchantId: string;
let seq = 0;
const email = () => `person${++seq}.${process.pid}@example.com`;

beforeAll(async () => {
  srv = await startServer({ env: { SIGN_IN_FAILURES_PER_ACCOUNT: '3', SIGN_IN_LOCK_S: '2', REDIS_URL: '' } });
  merchantId = (await srv.app.auth.createMerchant(`People ${process.pid}`)).id;
});
afterAll(async () => {
  await srv?.close();
});

test('a setup link works once: short passwords refused, then the person signs in with a cookie that is __Host-, HttpOnly, Secure, SameSite=Strict', async () => {
  const e = email();
  const invited = await srv.app.team.createUser(merchantId, e.toUpperCase(), 'owner');
  expect(invited.user_id).toMatch(/^usr_/);
  expect(invited.setup_url).toMatch(new RegExp(`^${srv.url}/dashboard/#setup=[A-Za-z0-9_-]{43}$`));
  const token = invited.setup_url!.split('#setup=')[1];
  expect((await dashboardPost(srv, '/dashboard/setup', { token, password: 'short pass' })).body.error).toMatchObject({
    code: 'validation_error',
    param: 'password',
  });
  expect((await dashboardPost(srv, '/dashboard/setup', { token, password: PASSWORD })).status).toBe(200);
  expect((await dashboardPost(srv, '/dashboard/setup', { token, password: PASSWORD })).status).toBe(404);
  // The same email in another case is the same person.
  await expect(srv.app.team.createUser(merchantId, e, 'viewer')).rejects.toMatchObject({ code: 'validation_error' });

  const res = await signIn(srv, e);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ member: { id: invited.user_id, role: 'owner' }, merchant_id: merchantId, environment: 'test', notice: null });
  const setCookie = res.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}; /);
  expect(setCookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict', 'Secure']);
  expect(res.headers.get('cache-control')).toBe('no-store');
});

test('the cookie authenticates REST and GraphQL as the member; another origin, or a POST without Origin, is refused', async () => {
  const owner = await addMember(srv, merchantId, email(), 'owner');
  const me = await owner.gql('{ me { id email role environment merchant { id } } viewer { environment } }');
  expect(me.body.data.me).toMatchObject({ id: owner.userId, role: 'OWNER', environment: 'TEST', merchant: { id: merchantId } });
  expect((await owner.get('/v1/balances')).status).toBe(200);

  const evil = { origin: 'https://evil.example' };
  const crossSite = await owner.gql('{ me { id } }', undefined, evil);
  expect(crossSite.status).toBe(403);
  expect(crossSite.text).toContain('permission_denied');
  expect((await owner.post('/v1/topup_intents', { amount: '100', currency: 'THB', country: 'TH', merchant_reference: 'x' }, { headers: evil })).status).toBe(
    403,
  );
  expect((await owner.post('/v1/payout_intents', {}, { headers: { origin: '' } })).status).toBe(403);
  expect((await owner.gql('{ me { id } }', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  // GraphQL keeps its CSRF guard: a GET query with the cookie and no preflight header is refused.
  const get = await owner.get(`/graphql?query=${encodeURIComponent('{ me { id } }')}`);
  expect(get.status).toBe(400);
  // A cross-site sign-in (login CSRF) is refused too.
  expect((await signIn(srv, owner.email, PASSWORD, undefined, evil)).status).toBe(403);
});

test('me answers what the role grants (the dashboard hides the rest); a 401 to a browser script carries no Basic challenge', async () => {
  const viewer = await addMember(srv, merchantId, email(), 'viewer');
  const finance = await addMember(srv, merchantId, email(), 'finance');
  const grants = async (m: MemberClient) => (await m.gql('{ me { permissions capabilities } }')).body.data.me;
  const v = await grants(viewer);
  expect(v.capabilities).toEqual([]);
  expect(v.permissions).toContain('payout_intents:read');
  expect(v.permissions.filter((p: string) => p.endsWith(':write'))).toEqual([]);
  const f = await grants(finance);
  expect(f.permissions).toEqual(expect.arrayContaining(['payout_approvals:write', 'payout_intents:write', 'balances:read']));
  expect(f.permissions.some((p: string) => p.startsWith('webhook_endpoints:'))).toBe(false);
  const owner = await addMember(srv, merchantId, email(), 'owner');
  expect((await grants(owner)).capabilities).toEqual(['members', 'owners', 'api_keys', 'approval_policies']);

  // The dashboard's first look for a session (no cookie yet): 401, without the header that opens the browser's password prompt.
  const anonymous = await srv
    .client()
    .post('/graphql', { query: '{ me { id } }' }, { headers: { 'sec-fetch-dest': 'empty', 'sec-fetch-site': 'same-origin' } });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toBeNull();
  const wrong = await signIn(srv, viewer.email, `${PASSWORD}x`, undefined, { 'sec-fetch-dest': 'empty' });
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get('www-authenticate')).toBeNull();
  // Any other client is still challenged, as the contract says.
  expect((await srv.client().post('/graphql', { query: '{ me { id } }' })).headers.get('www-authenticate')).toBe('Basic realm="payments"');
});

test('session fixation: a token presented at sign-in is never the session, and one from before sign-in is useless after it', async () => {
  const member = await addMember(srv, merchantId, email(), 'viewer');
  const planted = 'A'.repeat(43);
  const res = await signIn(srv, member.email, PASSWORD, undefined, { cookie: `__Host-session=${planted}` });
  expect(res.status).toBe(200);
  expect(cookieOf(res)).not.toBe(`__Host-session=${planted}`);
  const plantedClient = new MemberClient(srv.url, `__Host-session=${planted}`, member.userId, member.email, merchantId);
  expect((await plantedClient.get('/v1/balances')).status).toBe(401);
  // The earlier session's token, presented at a new sign-in, is ended by it.
  const again = await signIn(srv, member.email, PASSWORD, undefined, { cookie: member.cookie });
  expect(again.status).toBe(200);
  expect((await member.get('/v1/balances')).status).toBe(401);
  const fresh = new MemberClient(srv.url, cookieOf(again), member.userId, member.email, merchantId);
  expect((await fresh.get('/v1/balances')).status).toBe(200);
  // Signing out ends it.
  expect((await fresh.post('/dashboard/sign-out')).headers.get('set-cookie')).toMatch(/Max-Age=0/);
  expect((await fresh.get('/v1/balances')).status).toBe(401);
});

test('an unknown email and a wrong password get the same status and body (timings reported)', async () => {
  // Three people, two wrong passwords each: below the lock (three failures).
  const people = [];
  for (let i = 0; i < 3; i++) people.push(await addMember(srv, merchantId, email(), 'viewer'));
  const unknown: number[] = [];
  const wrong: number[] = [];
  let first: { status: number; text: string } | undefined;
  for (let i = 0; i < 6; i++) {
    for (const [list, who] of [
      [unknown, `nobody${i}.${process.pid}@example.com`],
      [wrong, people[i % 3].email],
    ] as const) {
      const t0 = performance.now();
      const res = await signIn(srv, who, `wrong password ${i}!`);
      list.push(performance.now() - t0);
      first ??= { status: res.status, text: res.text };
      expect({ status: res.status, text: res.text }).toEqual(first);
    }
  }
  expect(first).toEqual({
    status: 401,
    text: JSON.stringify({ error: { code: 'unauthorized', message: 'Email, password or authentication code is wrong.' } }),
  });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  process.stdout.write(`\nsign-in refusal time, median of 6: unknown email ${median(unknown).toFixed(1)} ms, wrong password ${median(wrong).toFixed(1)} ms\n`);
});

test('repeated failures lock the account (429 for the right password too); the next successful sign-in says so, once', async () => {
  const member = await addMember(srv, merchantId, email(), 'viewer');
  for (let i = 0; i < 3; i++) expect((await signIn(srv, member.email, 'not the password at all')).status).toBe(401);
  const locked = await signIn(srv, member.email);
  expect(locked.status).toBe(429);
  expect(locked.body.error.code).toBe('rate_limited');
  expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  // An unknown email is locked the same way: the lock says nothing about who exists.
  for (let i = 0; i < 3; i++) await signIn(srv, `ghost.${process.pid}@example.com`, 'not the password at all');
  expect((await signIn(srv, `ghost.${process.pid}@example.com`)).status).toBe(429);
  await new Promise((r) => setTimeout(r, 2100));
  const ok = await signIn(srv, member.email);
  expect(ok.status).toBe(200);
  expect(ok.body.notice).toMatch(/locked at .* after repeated failed attempts/);
  expect((await signIn(srv, member.email)).body.notice).toBeNull();
});

test('TOTP: enrolled with a code, then needed at sign-in; recovery codes work once; live mode needs the second factor', async () => {
  const finance = await addMember(srv, merchantId, email(), 'finance');
  const live = await finance.gql('mutation($m: ID!) { switchMerchant(merchantId: $m, environment: LIVE) { environment } }', { m: merchantId });
  expect(live.body.errors![0].extensions.code).toBe('permission_denied');
  const { secret, recoveryCodes } = await enrolTotp(finance);
  expect(recoveryCodes).toHaveLength(10);
  expect((await signIn(srv, finance.email)).status).toBe(401);
  expect((await signIn(srv, finance.email, PASSWORD, '000000')).status).toBe(401);
  const next = totpCode(secret, Date.now() + 30_000);
  const withCode = await signedInAs(srv, finance.email, finance.userId, merchantId, next);
  // The same code is not accepted twice.
  expect((await signIn(srv, finance.email, PASSWORD, next)).status).toBe(401);
  expect((await signIn(srv, finance.email, PASSWORD, recoveryCodes[0].toUpperCase())).status).toBe(200);
  expect((await signIn(srv, finance.email, PASSWORD, recoveryCodes[0])).status).toBe(401);
  const switched = await withCode.gql('mutation($m: ID!) { switchMerchant(merchantId: $m, environment: LIVE) { environment role } }', { m: merchantId });
  expect(switched.body.data.switchMerchant).toEqual({ environment: 'LIVE', role: 'FINANCE' });
  expect((await withCode.gql('{ me { environment } }')).body.data.me.environment).toBe('LIVE');
});
