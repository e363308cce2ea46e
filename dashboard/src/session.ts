/**
 * The key pair lives in sessionStorage only (this tab, until it closes or signs out):
 * never localStorage, never a cookie, never a URL.
 */
export interface Session {
  publicKey: string;
  secretKey: string;
}

const STORAGE_KEY = 'dashboard.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    const s = raw ? (JSON.parse(raw) as Partial<Session>) : null;
    return s && typeof s.publicKey === 'string' && typeof s.secretKey === 'string' ? { publicKey: s.publicKey, secretKey: s.secretKey } : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** HTTP Basic with the key pair, as the REST and GraphQL surfaces (and graphql-ws connection params) take it. */
export function authorization(s: Session): string {
  return `Basic ${btoa(`${s.publicKey}:${s.secretKey}`)}`;
}

/** Test keys are pk_test_/sk_test_; the server decides, this only picks the banner before the first answer. */
export const looksLikeTest = (s: Session): boolean => s.publicKey.startsWith('pk_test_');
