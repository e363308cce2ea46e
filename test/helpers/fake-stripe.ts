/**
 * A small local stand-in for Stripe's API, for the real `stripe` SDK to talk to in tests
 * (its host/port/protocol options): PaymentIntents created, confirmed for PromptPay and
 * retrieved, in the shapes of the SDK's own types (Stripe.PaymentIntent, Stripe.Event), with
 * Idempotency-Key replay. `pay` settles one and answers the signed event Stripe would send.
 * `mode` makes it answer 500 or never answer, for failover tests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

type Json = Record<string, any>;

function id(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export class FakeStripe {
  readonly intents = new Map<string, Json>();
  private readonly byKey = new Map<string, string>();
  /** ok: answers; down: 500 on creates; hang: never answers creates. */
  mode: 'ok' | 'down' | 'hang' = 'ok';
  creates = 0;
  readonly refunds = new Map<string, Json>();
  /** The status new refunds get (Stripe answers `pending` for some methods and settles later). */
  refundStatus: 'succeeded' | 'pending' = 'succeeded';
  /** Every Authorization header seen (to check the account's key is the one used). */
  readonly authorizations = new Set<string>();
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeStripe> {
    const ref: { fake?: FakeStripe } = {};
    const server = http.createServer((req, res) => ref.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.fake = new FakeStripe(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return ref.fake;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Marks the PaymentIntent paid (as the payer's bank would) and answers the event Stripe sends, signed with `secret`. */
  pay(piId: string, secret: string): { payload: string; signature: string; event: Json } {
    const pi = this.intents.get(piId);
    if (!pi) throw new Error(`fake stripe: no ${piId}`);
    pi.status = 'succeeded';
    pi.next_action = null;
    pi.amount_received = pi.amount;
    return this.event('payment_intent.succeeded', pi, secret);
  }

  /** The event of `type` about `pi`, signed with `secret` as Stripe signs (the SDK's own test header). */
  event(type: string, pi: Json, secret: string): { payload: string; signature: string; event: Json } {
    const event = {
      id: id('evt'),
      object: 'event',
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      data: { object: { ...pi } },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const payload = JSON.stringify(event);
    const signature = new Stripe('sk_test_fake').webhooks.generateTestHeaderString({ payload, secret });
    return { payload, signature, event };
  }

  private send(res: http.ServerResponse, status: number, body: Json): void {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.headers.authorization) this.authorizations.add(req.headers.authorization);
      const url = new URL(req.url ?? '/', this.url);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (req.method === 'POST' && url.pathname === '/v1/payment_intents') return this.create(req, res, form);
      if (req.method === 'POST' && url.pathname === '/v1/refunds') return this.refund(req, res, form);
      const rf = /^\/v1\/refunds\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && rf) {
        const refund = this.refunds.get(rf[1]);
        if (!refund) return this.send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such refund: '${rf[1]}'` } });
        return this.send(res, 200, refund);
      }
      const m = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) {
        const pi = this.intents.get(m[1]);
        if (!pi)
          return this.send(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${m[1]}'` } });
        return this.send(res, 200, pi);
      }
      this.send(res, 404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
    });
  }

  private refund(req: http.IncomingMessage, res: http.ServerResponse, form: URLSearchParams): void {
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && this.byKey.has(key)) return this.send(res, 200, this.refunds.get(this.byKey.get(key)!)!);
    const pi = this.intents.get(form.get('payment_intent') ?? '');
    if (!pi) return this.send(res, 400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent' } });
    const amount = Number(form.get('amount') ?? pi.amount);
    const refunded = [...this.refunds.values()].filter((r) => r.payment_intent === pi.id).reduce((n, r) => n + r.amount, 0);
    if (pi.status !== 'succeeded' || refunded + amount > pi.amount)
      return this.send(res, 400, { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge has already been refunded.' } });
    const metadata: Json = {};
    for (const [k, v] of form) {
      const mm = /^metadata\[(.+)\]$/.exec(k);
      if (mm) metadata[mm[1]] = v;
    }
    const refund: Json = {
      id: id('re'),
      object: 'refund',
      amount,
      currency: pi.currency,
      payment_intent: pi.id,
      status: this.refundStatus,
      metadata,
      created: Math.floor(Date.now() / 1000),
    };
    this.refunds.set(refund.id, refund);
    if (typeof key === 'string') this.byKey.set(key, refund.id);
    this.send(res, 200, refund);
  }

  private create(req: http.IncomingMessage, res: http.ServerResponse, form: URLSearchParams): void {
    this.creates++;
    if (this.mode === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (this.mode === 'down') return this.send(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && this.byKey.has(key)) return this.send(res, 200, this.intents.get(this.byKey.get(key)!)!);
    const piId = id('pi');
    const metadata: Json = {};
    for (const [k, v] of form) {
      const mm = /^metadata\[(.+)\]$/.exec(k);
      if (mm) metadata[mm[1]] = v;
    }
    const expires = Math.floor(Date.now() / 1000) + 900;
    const data = `00020101021230570016A00000067701011201150105560123456010212${piId.slice(-10)}5303764540${form.get('amount')}5802TH6304ABCD`;
    const pi: Json = {
      id: piId,
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      amount_received: 0,
      currency: form.get('currency'),
      status: form.get('confirm') === 'true' ? 'requires_action' : 'requires_confirmation',
      client_secret: `${piId}_secret_${randomBytes(8).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      metadata,
      payment_method_types: ['promptpay'],
      last_payment_error: null,
      cancellation_reason: null,
      next_action: {
        type: 'promptpay_display_qr_code',
        promptpay_display_qr_code: {
          data,
          expires_at: expires,
          hosted_instructions_url: `https://payments.stripe.com/promptpay/instructions/${piId}`,
          image_url_png: `https://qr.stripe.com/${piId}.png`,
          image_url_svg: `https://qr.stripe.com/${piId}.svg`,
        },
      },
    };
    this.intents.set(piId, pi);
    if (typeof key === 'string') this.byKey.set(key, piId);
    this.send(res, 200, pi);
  }
}
