/** Members for tests: a person added with the service (as the CLI does), set up through their link, signed in with a cookie. */
import { Client, type RequestOptions, type Res } from './client';
import type { TestServer } from './server';
import { totpCode } from '../../src/modules/people/credentials';
import type { Role } from '../../src/domain/permissions';

export const PASSWORD = 'correct horse battery staple';

/** A client that sends the session cookie and the dashboard's Origin instead of Basic credentials. */
export class MemberClient extends Client {
  constructor(
    baseUrl: string,
    readonly cookie: string,
    readonly userId: string,
    readonly email: string,
    readonly merchantIdOf: string,
  ) {
    super(baseUrl);
  }

  /** The session token (the cookie's value). */
  get token(): string {
    return this.cookie.slice(this.cookie.indexOf('=') + 1);
  }

  request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Res<T>> {
    return super.request<T>(method, path, { ...options, headers: { cookie: this.cookie, origin: this.baseUrl, ...(options.headers ?? {}) } });
  }
}

/** The `name=value` of a Set-Cookie answer. */
export function cookieOf(res: Res): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.slice(0, set.indexOf(';'));
}

/** POST to a /dashboard route from the dashboard's origin. */
export function dashboardPost(srv: TestServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Res> {
  return srv.client().post(path, body, { headers: { origin: srv.url, ...headers } });
}

export async function signIn(srv: TestServer, email: string, password = PASSWORD, code?: string, headers: Record<string, string> = {}): Promise<Res> {
  return dashboardPost(srv, '/dashboard/sign-in', { email, password, ...(code ? { code } : {}) }, headers);
}

/** Adds `email` to the merchant with `role`, uses the setup link, signs in; with `totpSecret` the code too. */
export async function addMember(srv: TestServer, merchantId: string, email: string, role: Role): Promise<MemberClient> {
  const invited = await srv.app.team.createUser(merchantId, email, role);
  if (invited.setup_url) {
    const token = invited.setup_url.slice(invited.setup_url.indexOf('#setup=') + 7);
    const setup = await dashboardPost(srv, '/dashboard/setup', { token, password: PASSWORD });
    if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${setup.text}`);
  }
  return signedInAs(srv, email, invited.user_id, merchantId);
}

export async function signedInAs(srv: TestServer, email: string, userId: string, merchantId: string, code?: string): Promise<MemberClient> {
  const res = await signIn(srv, email, PASSWORD, code);
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
  return new MemberClient(srv.url, cookieOf(res), userId, email, merchantId);
}

/** Sets up an authenticator for a signed-in member; answers its secret and recovery codes. */
export async function enrolTotp(member: MemberClient): Promise<{ secret: string; recoveryCodes: string[] }> {
  const enrol = await member.gql('mutation { enrolTotp { secret uri } }');
  const secret = enrol.body.data.enrolTotp.secret as string;
  const confirm = await member.gql('mutation($c: String!) { confirmTotp(code: $c) { recoveryCodes } }', { c: totpCode(secret) });
  return { secret, recoveryCodes: confirm.body.data.confirmTotp.recoveryCodes };
}
