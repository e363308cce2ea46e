/** A tiny HTTP client for tests: real requests over loopback with Basic auth. */
import type { Principal } from '../../src/domain/permissions';

export interface Res<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Omit the JSON content type on POST. */
  noContentType?: boolean;
}

export interface KeyInfo {
  merchantId: string;
  apiKeyId: string;
  environment: 'test' | 'live';
  /** The key as permission checks see it. */
  principal: Principal;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly auth?: string,
    readonly key?: KeyInfo,
  ) {}

  get merchantId(): string {
    return this.key!.merchantId;
  }

  get authorization(): string | undefined {
    return this.auth ? `Basic ${Buffer.from(this.auth).toString('base64')}` : undefined;
  }

  withBase(baseUrl: string): Client {
    return new Client(baseUrl, this.auth, this.key);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.authorization && !('authorization' in headers)) headers.authorization = this.authorization;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    let body: string | undefined = options.raw;
    if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
    if (method === 'POST' && !options.noContentType && !('content-type' in headers)) headers['content-type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: any = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  async gql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Res<{ data?: T; errors?: any[]; extensions?: Record<string, any> }>> {
    return this.request('POST', '/graphql', { body: { query, variables }, headers });
  }
}

let seq = 0;
/** `what`'s value once `ok` says so, or its last value after `ms` (the caller's assertion then says what differs). */
export async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A unique merchant reference for this test run. */
export function ref(prefix = 'ref'): string {
  return `${prefix}-${Date.now().toString(36)}-${process.pid}-${++seq}`;
}

export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: '1000',
    currency: 'THB',
    country: 'TH',
    merchant_reference: ref('po'),
    recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
    ...overrides,
  };
}

export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
