/**
 * Signing in and out, and using a setup link: the dashboard's own routes under /dashboard
 * (src/modules/people/people.routes.ts). The session is the `__Host-session` cookie the
 * server sets (HttpOnly: no script here ever sees it); nothing is kept in localStorage or
 * sessionStorage, and no API key is ever asked for.
 */
export class RouteFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly param?: string,
  ) {
    super(message);
  }
}

async function post<T>(path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (e) {
    throw new RouteFailure(`Network error: ${(e as Error).message}`, 0);
  }
  const json = (await res.json().catch(() => null)) as { error?: { message?: string; param?: string } } | null;
  if (!res.ok) throw new RouteFailure(json?.error?.message ?? `HTTP ${res.status}`, res.status, json?.error?.param);
  return json as T;
}

export interface SignedInAnswer {
  member: { id: string; email: string; role: string };
  merchant_id: string;
  environment: string;
  /** Told once: the account was locked by failed attempts since the last sign-in. */
  notice: string | null;
}

/** `code` is an authenticator code or a recovery code; empty when the person has no authenticator. */
export function signIn(email: string, password: string, code: string): Promise<SignedInAnswer> {
  return post('/dashboard/sign-in', { email, password, ...(code ? { code } : {}) });
}

export async function signOut(): Promise<void> {
  await post('/dashboard/sign-out', {}).catch(() => undefined);
}

/** Uses a setup link once: answers the person's email. */
export function completeSetup(token: string, password: string): Promise<{ email: string }> {
  return post('/dashboard/setup', { token, password });
}

/** The server's minimum (src/modules/people/credentials.ts MIN_PASSWORD_LENGTH), counted in code points as it counts. */
export const MIN_PASSWORD = 12;

/** The setup token of a `#setup=<token>` fragment (the CLI's and inviteMember's setup_url), or null. */
export function setupTokenOf(hash: string): string | null {
  const m = /^#setup=([A-Za-z0-9_-]{1,100})$/.exec(hash);
  return m ? m[1] : null;
}
