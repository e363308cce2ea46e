/**
 * Guessing is limited and seen: a wrong current password in `changePassword` counts toward
 * the account's sign-in lock (and a locked account cannot change its password), and every
 * refused sign-in, refused second factor, refused password change and lockout is one log line
 * naming the account (the member id, or the email typed for an unknown one), never the password
 * or the code. Asserted on the service's own log output.
 */
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from '../helpers/server';
import { addMember, enrolTotp, PASSWORD, signedInAs, signIn, type MemberClient } from '../helpers/members';
import { totpCode } from '../../src/modules/people/credentials';

type Line = Record<string, unknown> & { msg: string };
const lines: Line[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
    done();
  },
});

const SIGN_IN_MSGS = ['sign-in refused', 'second factor refused', 'password change refused', 'sign-in locked'];
/** The sign-in lines logged since `from`, as [msg, reason or scope, account]. */
const since = (from: number) =>
  lines
    .slice(from)
    .filter((l) => SIGN_IN_MSGS.includes(l.msg))
    .map((l) => [l.msg, l.reason ?? l.scope, l.memberId ?? l.email]);

let srv: TestServer;
let merchantId: string;
beforeAll(async () => {
  srv = await startServer({
    env: { LOG_LEVEL: 'info', SIGN_IN_FAILURES_PER_ACCOUNT: '3', SIGN_IN_FAILURES_PER_ADDRESS: '1000', SIGN_IN_LOCK_S: '2', REDIS_URL: '' },
    logDestination: capture,
    scheduler: false,
  });
  merchantId = (await srv.app.auth.createMerchant(`Sign-in log ${process.pid}`)).id;
});
afterAll(async () => {
  await srv?.close();
});

const newMember = (role: 'viewer' | 'finance' = 'viewer'): Promise<MemberClient> => addMember(srv, merchantId, `p-${randomUUID()}@example.com`, role);
const changePassword = (m: MemberClient, current: string, next = 'a brand new long password') =>
  m.gql('mutation($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }', { c: current, n: next });

test('wrong current passwords in changePassword lock the account as failed sign-ins do; locked, the right password is refused too, and nothing changes', async () => {
  const m = await newMember();
  const from = lines.length;
  const guesses = ['guess number one!', 'guess number two!', 'guess number three!'];
  for (const guess of guesses) {
    const res = await changePassword(m, guess);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'validation_error' });
  }
  const locked = await changePassword(m, PASSWORD);
  expect(locked.body.errors![0].extensions.code).toBe('rate_limited');
  const signInLocked = await signIn(srv, m.email);
  expect([signInLocked.status, signInLocked.body.error.code]).toEqual([429, 'rate_limited']);
  expect(since(from)).toEqual([
    ['password change refused', 'wrong_password', m.userId],
    ['password change refused', 'wrong_password', m.userId],
    ['password change refused', 'wrong_password', m.userId],
    ['sign-in locked', 'account', m.userId],
    ['password change refused', 'locked', m.userId],
    ['sign-in refused', 'locked', m.email],
  ]);
  const text = JSON.stringify(lines.slice(from));
  for (const secret of [...guesses, PASSWORD, 'a brand new long password']) expect(text).not.toContain(secret);
  // After the lock the old password still signs in: the change never happened.
  await new Promise((r) => setTimeout(r, 2100));
  expect((await signIn(srv, m.email)).status).toBe(200);
});

test('sign-in failures and password-change failures share one count', async () => {
  const m = await newMember();
  for (let i = 0; i < 2; i++) expect((await signIn(srv, m.email, 'a wrong password here')).status).toBe(401);
  expect((await changePassword(m, 'another wrong password')).body.errors![0].extensions.code).toBe('validation_error');
  expect((await signIn(srv, m.email)).status).toBe(429);
  await new Promise((r) => setTimeout(r, 2100));
});

test('each refused sign-in is one line naming the account and why; the lockout is one more; never the password or the code', async () => {
  const ghost = `ghost-${randomUUID()}@example.com`;
  const m = await newMember('finance');
  const { secret } = await enrolTotp(m);
  const from = lines.length;
  expect((await signIn(srv, ghost, 'ghost password guess')).status).toBe(401);
  expect((await signIn(srv, m.email, 'member password guess')).status).toBe(401);
  const wrongCode = String((Number(totpCode(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  expect((await signIn(srv, m.email, PASSWORD, wrongCode)).status).toBe(401);
  expect((await signIn(srv, m.email, 'member password guess')).status).toBe(401);
  expect((await signIn(srv, m.email, PASSWORD)).status).toBe(429);
  expect(since(from)).toEqual([
    ['sign-in refused', 'unknown_account', ghost],
    ['sign-in refused', 'wrong_password', m.userId],
    ['sign-in refused', 'wrong_code', m.userId],
    ['sign-in refused', 'wrong_password', m.userId],
    ['sign-in locked', 'account', m.userId],
    ['sign-in refused', 'locked', m.email],
  ]);
  const logged = lines.slice(from).filter((l) => SIGN_IN_MSGS.includes(l.msg));
  for (const l of logged) expect(l).toMatchObject({ level: 40, component: 'sign-in' });
  const text = JSON.stringify(logged);
  for (const secret of ['ghost password guess', 'member password guess', PASSWORD]) expect(text).not.toContain(secret);
  expect(logged.flatMap((l) => Object.values(l)).filter((v) => typeof v === 'string' && v.includes(wrongCode))).toEqual([]);
  await new Promise((r) => setTimeout(r, 2100));
});

test('a refused step-up code is one line naming the member; the code is not in it', async () => {
  const m = await newMember('finance');
  const { secret } = await enrolTotp(m);
  // Signed in again with a code: the first session predates the authenticator.
  const me = await signedInAs(srv, m.email, m.userId, merchantId, totpCode(secret, Date.now() + 30_000));
  const from = lines.length;
  const wrongCode = String((Number(totpCode(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  const res = await me.gql('mutation($c: String!) { confirmSecondFactor(code: $c) }', { c: wrongCode });
  expect(res.body.errors![0].extensions.code).toBe('unauthorized');
  expect(since(from)).toEqual([['second factor refused', 'wrong_code', m.userId]]);
  expect(
    lines
      .slice(from)
      .flatMap((l) => Object.values(l))
      .filter((v) => typeof v === 'string' && v.includes(wrongCode)),
  ).toEqual([]);
});

describe('an address lock', () => {
  let other: TestServer;
  const otherLines: Line[] = [];
  beforeAll(async () => {
    other = await startServer({
      env: { LOG_LEVEL: 'info', SIGN_IN_FAILURES_PER_ACCOUNT: '100', SIGN_IN_FAILURES_PER_ADDRESS: '3', SIGN_IN_LOCK_S: '2', REDIS_URL: '' },
      logDestination: new Writable({
        write(chunk, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) otherLines.push(JSON.parse(line) as Line);
          done();
        },
      }),
      scheduler: false,
    });
  });
  afterAll(async () => {
    await other?.close();
  });

  test('is one line naming the address', async () => {
    for (let i = 0; i < 3; i++) expect((await signIn(other, `nobody-${i}-${randomUUID()}@example.com`, 'some guess')).status).toBe(401);
    const locks = otherLines.filter((l) => l.msg === 'sign-in locked');
    expect(locks).toEqual([expect.objectContaining({ scope: 'address', address: expect.any(String), retryAfterS: expect.any(Number) })]);
    expect(otherLines.filter((l) => l.msg === 'sign-in refused')).toHaveLength(3);
  });
});

test('input that is not an email address is not logged (it may be a password typed in the wrong field)', async () => {
  const from = lines.length;
  expect((await signIn(srv, 'my secret password typed here', 'x')).status).toBe(401);
  expect(since(from)).toEqual([['sign-in refused', 'unknown_account', null]]);
  expect(JSON.stringify(lines.slice(from))).not.toContain('my secret password');
});
