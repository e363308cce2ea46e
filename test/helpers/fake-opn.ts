/**
 * A small local stand-in for Opn Payments' API (https://docs.opn.ooo), in the shapes of its
 * documentation and of the `omise` package's own types: capability, sources, charges (PromptPay
 * with its QR bill-payment references; internet/mobile banking with an `authorize_uri`),
 * refunds, recipients, transfers and events, with Idempotency-Key replay and HTTP Basic keys.
 * `pay`/`fail` settle a charge as the payer's bank would, `payTransfer`/`failTransfer` a
 * transfer, and each answers the event Opn would then announce; the bank page
 * at `authorize_uri` pays the charge and sends the payer back to its `return_uri`. `mode`
 * makes creates answer 500 or never answer, for failover tests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

type Json = Record<string, any>;

const id = (prefix: string): string => `${prefix}_test_${randomBytes(8).toString('hex')}`;

export const OPN_BANKING_METHODS = ['internet_banking_bbl', 'internet_banking_bay', 'mobile_banking_kbank', 'mobile_banking_scb'];

export class FakeOpn {
  readonly sources = new Map<string, Json>();
  readonly charges = new Map<string, Json>();
  readonly events = new Map<string, Json>();
  readonly refunds = new Map<string, Json>();
  readonly recipients = new Map<string, Json>();
  readonly transfers = new Map<string, Json>();
  private readonly byKey = new Map<string, Json>();
  /** ok: answers; down: 500 on creates; hang: never answers creates. */
  mode: 'ok' | 'down' | 'hang' = 'ok';
  creates = 0;
  /** When set, a new transfer sent with `fail_fast` fails at once with this code (the account cannot pay it now). */
  failFastCode: string | null = null;
  /** GET /events answers 500 (Opn cannot confirm a webhook's event). */
  eventsDown = false;
  /** What GET /capability lists (THB), besides promptpay. */
  bankingMethods = [...OPN_BANKING_METHODS];
  /** GET /events/:id answered (webhooks confirmed by fetching them back). */
  eventReads = 0;
  /** Every Authorization header seen. */
  readonly authorizations = new Set<string>();
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeOpn> {
    const ref: { fake?: FakeOpn } = {};
    const server = http.createServer((req, res) => ref.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.fake = new FakeOpn(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return ref.fake;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The charge paid (as the payer's bank tells Opn): answers the `charge.complete` event's id. */
  pay(chargeId: string): string {
    return this.settle(chargeId, 'successful');
  }

  /** The charge failed at the bank: answers the `charge.complete` event's id. */
  fail(chargeId: string): string {
    return this.settle(chargeId, 'failed', 'payment_rejected', 'The payment was rejected by the bank');
  }

  /** The bank paid the transfer: answers the `transfer.pay` event's id. */
  payTransfer(transferId: string): string {
    const t = this.transfers.get(transferId);
    if (!t) throw new Error(`fake opn: no ${transferId}`);
    Object.assign(t, { sent: true, sent_at: new Date().toISOString(), paid: true, paid_at: new Date().toISOString() });
    return this.event('transfer.pay', t);
  }

  /**
   * The transfer failed (the bank refused it, a closed account say): answers the
   * `transfer.fail` event's id. Opn documents no failure after a transfer was paid; called on a
   * paid transfer, this stands for one anyway (how the service copes with such news).
   */
  failTransfer(transferId: string): string {
    const t = this.transfers.get(transferId);
    if (!t) throw new Error(`fake opn: no ${transferId}`);
    Object.assign(t, { sent: true, paid: false, paid_at: null, failure_code: 'transfer_failed', failure_message: 'The transfer failed at the bank' });
    return this.event('transfer.fail', t);
  }

  /** What Opn POSTs to the webhook endpoint: the event, as JSON. */
  webhookBody(eventId: string): string {
    return JSON.stringify(this.events.get(eventId));
  }

  private settle(chargeId: string, status: string, code: string | null = null, message: string | null = null): string {
    const charge = this.charges.get(chargeId);
    if (!charge) throw new Error(`fake opn: no ${chargeId}`);
    charge.status = status;
    charge.paid = status === 'successful';
    charge.paid_at = charge.paid ? new Date().toISOString() : null;
    charge.failure_code = code;
    charge.failure_message = message;
    return this.event('charge.complete', charge);
  }

  private event(key: string, data: Json): string {
    const event = { object: 'event', id: id('evnt'), livemode: false, location: '', key, created_at: new Date().toISOString(), data: structuredClone(data) };
    event.location = `/events/${event.id}`;
    this.events.set(event.id, event);
    return event.id;
  }

  private send(res: http.ServerResponse, status: number, body: Json): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private notFound(res: http.ServerResponse, what: string): void {
    this.send(res, 404, { object: 'error', location: 'https://www.omise.co/api-errors#not-found', code: 'not_found', message: `${what} was not found` });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', this.url);
      const path = url.pathname;
      // The bank's page behind authorize_uri: the payer approves, Opn marks the charge paid and sends the payer back.
      const offsite = /^\/offsites\/([^/]+)\/pay$/.exec(path);
      if (req.method === 'GET' && offsite) {
        const charge = this.charges.get(offsite[1]);
        if (!charge) return this.notFound(res, 'charge');
        if (charge.status === 'pending') this.pay(charge.id);
        res.writeHead(302, { location: charge.return_uri });
        return res.end();
      }
      const auth = req.headers.authorization ?? '';
      if (!/^Basic [A-Za-z0-9+/=]+$/.test(auth)) {
        return this.send(res, 401, { object: 'error', location: '', code: 'authentication_failure', message: 'authentication failed' });
      }
      this.authorizations.add(auth);
      let body: Json = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        return this.send(res, 400, { object: 'error', location: '', code: 'bad_request', message: 'invalid JSON' });
      }
      if (req.method === 'GET' && path === '/capability') return this.send(res, 200, this.capability());
      if (
        req.method === 'POST' &&
        (path === '/recipients' || path === '/transfers' || path === '/sources' || path === '/charges' || /^\/charges\/[^/]+\/refunds$/.test(path))
      )
        return this.create(req, res, path, body);
      const rf = /^\/charges\/([^/]+)\/refunds\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && rf) {
        const refund = this.refunds.get(rf[2]);
        return refund && refund.charge === rf[1] ? this.send(res, 200, refund) : this.notFound(res, 'refund');
      }
      if (path.startsWith('/events/')) this.eventReads++;
      if (this.eventsDown && path.startsWith('/events/'))
        return this.send(res, 500, { object: 'error', location: '', code: 'internal_error', message: 'unexpected error' });
      const one = /^\/(charges|events|transfers)\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && one) {
        const record = (one[1] === 'charges' ? this.charges : one[1] === 'events' ? this.events : this.transfers).get(one[2]);
        return record ? this.send(res, 200, record) : this.notFound(res, one[1].slice(0, -1));
      }
      this.notFound(res, 'path');
    });
  }

  private capability(): Json {
    return {
      object: 'capability',
      location: '/capability',
      country: 'TH',
      banks: ['bbl', 'kbank', 'scb', 'bay', 'ktb'],
      zero_interest_installments: false,
      payment_methods: ['promptpay', ...this.bankingMethods].map((name) => ({
        object: 'payment_method',
        name,
        currencies: ['THB'],
        card_brands: null,
        installment_terms: null,
      })),
    };
  }

  private create(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: Json): void {
    this.creates++;
    if (this.mode === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (this.mode === 'down') return this.send(res, 500, { object: 'error', location: '', code: 'internal_error', message: 'unexpected error' });
    const key = req.headers['idempotency-key'];
    const replayKey = typeof key === 'string' ? `${req.headers.authorization} ${path} ${key}` : undefined;
    if (replayKey && this.byKey.has(replayKey)) return this.send(res, 200, this.byKey.get(replayKey)!);
    let record: Json;
    if (path === '/recipients') {
      const brands = ['bbl', 'kbank', 'scb', 'bay', 'ktb'];
      if (!brands.includes(body.bank_account?.brand))
        return this.send(res, 400, { object: 'error', code: 'invalid_bank_account', message: 'brand is invalid' });
      const recp = id('recp');
      record = {
        object: 'recipient',
        id: recp,
        location: `/recipients/${recp}`,
        verified: true,
        active: true,
        name: body.name,
        type: body.type,
        bank_account: {
          object: 'bank_account',
          brand: body.bank_account.brand,
          last_digits: String(body.bank_account.number).slice(-4),
          name: body.bank_account.name,
        },
        created_at: new Date().toISOString(),
      };
      this.recipients.set(recp, { ...record, number: body.bank_account.number });
    } else if (path === '/transfers') {
      if (!this.recipients.has(body.recipient)) return this.notFound(res, 'recipient');
      const trsf = id('trsf');
      record = {
        object: 'transfer',
        id: trsf,
        location: `/transfers/${trsf}`,
        amount: body.amount,
        currency: 'thb',
        recipient: body.recipient,
        sendable: true,
        sent: false,
        sent_at: null,
        paid: false,
        paid_at: null,
        fee: 2500,
        fail_fast: body.fail_fast === true,
        failure_code: body.fail_fast === true ? this.failFastCode : null,
        failure_message: body.fail_fast === true && this.failFastCode ? 'The transfer cannot be sent now' : null,
        metadata: body.metadata ?? {},
        created_at: new Date().toISOString(),
      };
      this.transfers.set(trsf, record);
      this.event('transfer.create', record);
    } else if (path === '/sources') {
      if (!Number.isInteger(body.amount) || body.amount < 2000)
        return this.send(res, 400, { object: 'error', code: 'invalid_amount', message: 'amount is invalid' });
      const src = id('src');
      record = {
        object: 'source',
        id: src,
        livemode: false,
        location: `/sources/${src}`,
        type: body.type,
        flow: body.type === 'promptpay' ? 'offline' : body.type.startsWith('mobile_banking') ? 'app_redirect' : 'redirect',
        amount: body.amount,
        currency: String(body.currency).toLowerCase(),
        scannable_code: null,
        references: null,
        created_at: new Date().toISOString(),
      };
      this.sources.set(src, record);
    } else if (path === '/charges') {
      const source = this.sources.get(body.source);
      if (!source) return this.notFound(res, 'source');
      const chrg = id('chrg');
      const s = structuredClone(source);
      if (s.type === 'promptpay') {
        s.scannable_code = {
          object: 'barcode',
          type: 'qr',
          image: { object: 'document', id: id('docu'), filename: 'qrcode.svg', download_uri: `${this.url}/charges/${chrg}/documents/qr/downloads/x` },
        };
        s.references = {
          omise_tax_id: '0105556091152',
          reference_number_1: chrg.slice(-12).toUpperCase(),
          reference_number_2: String(body.amount).padStart(10, '0'),
          expires_at: null,
        };
      }
      record = {
        object: 'charge',
        id: chrg,
        livemode: false,
        location: `/charges/${chrg}`,
        amount: body.amount,
        currency: String(body.currency).toLowerCase(),
        status: 'pending',
        paid: false,
        paid_at: null,
        authorize_uri: s.flow === 'offline' ? null : `${this.url}/offsites/${chrg}/pay`,
        return_uri: body.return_uri ?? null,
        failure_code: null,
        failure_message: null,
        refunded_amount: 0,
        refunds: { object: 'list', data: [], total: 0 },
        metadata: body.metadata ?? {},
        source: s,
        created_at: new Date().toISOString(),
      };
      this.charges.set(chrg, record);
      this.event('charge.create', record);
    } else {
      const charge = this.charges.get(path.split('/')[2]);
      if (!charge) return this.notFound(res, 'charge');
      if (charge.status !== 'successful' || charge.refunded_amount + body.amount > charge.amount)
        return this.send(res, 400, { object: 'error', code: 'failed_refund', message: 'charge cannot be refunded' });
      const rfnd = id('rfnd');
      record = {
        object: 'refund',
        id: rfnd,
        location: `/charges/${charge.id}/refunds/${rfnd}`,
        amount: body.amount,
        currency: charge.currency,
        charge: charge.id,
        status: 'closed',
        voided: false,
        metadata: body.metadata ?? {},
        created_at: new Date().toISOString(),
      };
      charge.refunded_amount += body.amount;
      charge.refunds.data.push(record);
      this.refunds.set(rfnd, record);
      this.event('refund.create', record);
    }
    if (replayKey) this.byKey.set(replayKey, record);
    this.send(res, 200, record);
  }
}
