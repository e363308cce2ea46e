/**
 * A small typed client of Opn Payments' REST API (https://docs.opn.ooo), used instead of the
 * `omise` SDK (decision 0167): the SDK takes a host with no port, picks http or https and a
 * proxy from process-wide environment variables, has no timeout, hides the HTTP status of an
 * error, patches Promise.prototype, and with DEBUG_OMISE=true prints request options and whole
 * answers (recipients' bank accounts) to the console. This client sends JSON with HTTP Basic
 * (the key as user name), bounds every call by the account's timeout, and logs nothing.
 */
import { ProviderUnavailableError } from './live-connector';

/** Opn's error body (`object: "error"`). */
export interface OpnErrorBody {
  object: 'error';
  location?: string;
  code: string;
  message: string;
}

/** The provider answered with an error it decided on (4xx): not retried elsewhere. */
export class OpnError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`opn ${status} ${code}: ${message}`);
  }
}

export type OpnChargeStatus = 'pending' | 'successful' | 'failed' | 'expired' | 'reversed';

export interface OpnSource {
  object: 'source';
  id: string;
  type: string;
  /** `offline` (PromptPay), `redirect` (internet banking), `app_redirect` (mobile banking). */
  flow: string;
  amount: number;
  currency: string;
  /** PromptPay: the QR image (a document) and the Thai QR bill-payment references it encodes. */
  scannable_code?: { object: 'barcode'; type: 'qr'; image: { object: 'document'; download_uri: string } } | null;
  references?: { omise_tax_id?: string; reference_number_1?: string; reference_number_2?: string; expires_at?: string } | null;
}

export interface OpnRefund {
  object: 'refund';
  id: string;
  amount: number;
  currency: string;
  charge: string;
  status?: 'pending' | 'closed' | 'failed';
  voided: boolean;
  metadata?: Record<string, unknown>;
}

export interface OpnCharge {
  object: 'charge';
  id: string;
  amount: number;
  currency: string;
  status: OpnChargeStatus;
  paid: boolean;
  authorize_uri: string | null;
  return_uri: string | null;
  failure_code: string | null;
  failure_message: string | null;
  source: OpnSource | null;
  metadata: Record<string, unknown>;
  refunded_amount?: number;
  expires_at?: string;
}

export interface OpnRecipient {
  object: 'recipient';
  id: string;
  verified: boolean;
  active: boolean;
}

/**
 * Opn's transfer (the fields read here). It has no status field and no reversal: `sent` once
 * it left for the bank, `paid` once the bank paid it, and `failure_code` (Opn documents
 * `insufficient_balance`, `invalid_recipient`, `transfers_suspended`, `transfer_deleted`,
 * `transfer_sent`, `transfer_failed`) once it failed.
 */
export interface OpnTransfer {
  object: 'transfer';
  id: string;
  amount: number;
  currency: string;
  recipient: string;
  sent: boolean;
  sent_at?: string | null;
  paid: boolean;
  paid_at?: string | null;
  /** Not retried by Opn once it failed. */
  fail_fast?: boolean;
  failure_code: string | null;
  failure_message: string | null;
  metadata?: Record<string, unknown>;
}

export interface OpnEvent {
  object: 'event';
  id: string;
  key: string;
  created_at: string;
  data: { object: string; id: string } & Record<string, unknown>;
}

export interface OpnCapability {
  object: 'capability';
  country: string;
  banks: string[];
  payment_methods: { object: 'payment_method'; name: string; currencies: string[] }[];
  limits?: { charge_amount?: { min: number; max: number } };
}

export interface OpnClientOptions {
  secretKey: string;
  publicKey?: string;
  /** The API base (https://api.omise.co, a sandbox or a local fake). */
  apiBase: string;
  timeoutMs: number;
}

export class OpnClient {
  constructor(private readonly options: OpnClientOptions) {}

  /**
   * One call. A timeout, a failed connection or a 5xx (or a refused key) is a
   * ProviderUnavailableError (failover may try another account); any other error answer is an
   * OpnError. `idempotencyKey` makes a repeated create the same record at Opn.
   */
  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, opts: { idempotencyKey?: string; key?: 'secret' | 'public' } = {}): Promise<T> {
    const key = opts.key === 'public' ? this.options.publicKey : this.options.secretKey;
    if (!key) throw new Error(`opn client: no ${opts.key ?? 'secret'} key`);
    const headers: Record<string, string> = {
      Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
    let res: Response;
    try {
      res = await fetch(new URL(path.replace(/^\//, ''), this.options.apiBase.replace(/\/?$/, '/')), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch {
      throw new ProviderUnavailableError('connection failed or timed out');
    }
    let parsed: unknown;
    try {
      parsed = await res.json();
    } catch {
      parsed = undefined;
    }
    if (res.status >= 500) throw new ProviderUnavailableError(`HTTP ${res.status}`);
    if (res.status === 401 || res.status === 403) throw new ProviderUnavailableError(`the account's key was refused (HTTP ${res.status})`);
    const err = parsed as Partial<OpnErrorBody> | undefined;
    if (res.status >= 400 || err?.object === 'error') throw new OpnError(res.status, err?.code ?? 'unknown', err?.message ?? 'no message');
    if (parsed === undefined) throw new ProviderUnavailableError(`HTTP ${res.status} with no JSON body`);
    return parsed as T;
  }

  createSource(body: { type: string; amount: number; currency: string }, idempotencyKey: string): Promise<OpnSource> {
    return this.call<OpnSource>('POST', '/sources', body, { key: this.options.publicKey ? 'public' : 'secret', idempotencyKey });
  }

  createCharge(
    body: { amount: number; currency: string; source: string; return_uri?: string; metadata: Record<string, string> },
    idempotencyKey: string,
  ): Promise<OpnCharge> {
    return this.call<OpnCharge>('POST', '/charges', body, { idempotencyKey });
  }

  retrieveCharge(id: string): Promise<OpnCharge> {
    return this.call<OpnCharge>('GET', `/charges/${encodeURIComponent(id)}`);
  }

  createRefund(chargeId: string, body: { amount: number; metadata: Record<string, string> }, idempotencyKey: string): Promise<OpnRefund> {
    return this.call<OpnRefund>('POST', `/charges/${encodeURIComponent(chargeId)}/refunds`, body, { idempotencyKey });
  }

  retrieveRefund(chargeId: string, refundId: string): Promise<OpnRefund> {
    return this.call<OpnRefund>('GET', `/charges/${encodeURIComponent(chargeId)}/refunds/${encodeURIComponent(refundId)}`);
  }

  createRecipient(
    body: { name: string; type: 'individual'; bank_account: { brand: string; number: string; name: string } },
    idempotencyKey: string,
  ): Promise<OpnRecipient> {
    return this.call<OpnRecipient>('POST', '/recipients', body, { idempotencyKey });
  }

  createTransfer(
    body: { amount: number; recipient: string; fail_fast: boolean; metadata: Record<string, string> },
    idempotencyKey: string,
  ): Promise<OpnTransfer> {
    return this.call<OpnTransfer>('POST', '/transfers', body, { idempotencyKey });
  }

  retrieveTransfer(id: string): Promise<OpnTransfer> {
    return this.call<OpnTransfer>('GET', `/transfers/${encodeURIComponent(id)}`);
  }

  retrieveEvent(id: string): Promise<OpnEvent> {
    return this.call<OpnEvent>('GET', `/events/${encodeURIComponent(id)}`);
  }

  capability(): Promise<OpnCapability> {
    return this.call<OpnCapability>('GET', '/capability');
  }
}
