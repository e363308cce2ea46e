/** Refund fixtures: a succeeded payment to refund, and the refund calls over REST. */
import type { Client } from '../helpers/client';
import { createPayment, directDebit, paymentBody } from '../helpers/fixtures';

/** A direct-debit payment intent of `amount` (it settles at once: succeeded, `available += amount`). */
export async function succeededPayment(c: Client, amount = '5000'): Promise<any> {
  const p = await createPayment(c, paymentBody({ ...directDebit(), amount }));
  expect(p.status).toBe('succeeded');
  return p;
}

/** POST /v1/refunds; returns the raw response. */
export function postRefund(c: Client, body: Record<string, unknown>, idempotencyKey?: string) {
  return c.post('/v1/refunds', body, idempotencyKey === undefined ? {} : { idempotencyKey });
}

/** POST /v1/refunds expecting 201; returns the refund. */
export async function createRefund(c: Client, body: Record<string, unknown>): Promise<any> {
  const res = await postRefund(c, body);
  if (res.status !== 201) throw new Error(`refund create answered ${res.status}: ${res.text}`);
  return res.body;
}

/** GET the payment intent's amount_refunded. */
export async function amountRefunded(c: Client, paymentId: string): Promise<string> {
  const res = await c.get(`/v1/payment_intents/${paymentId}`);
  expect(res.status).toBe(200);
  return res.body.amount_refunded;
}
