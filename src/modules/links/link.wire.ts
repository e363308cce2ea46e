/** The payment link as both surfaces show it, and the normalised create and update inputs. */
import { ApiError } from '../../domain/errors';
import { amountOf, upper } from '../../domain/fields';
import { isoInstant } from '../../domain/instant';
import { parseIsoInstant } from '../../domain/listing';
import { formatAmount } from '../../domain/money';
import { PAYMENT_METHODS } from '../methods/catalogue';
import type { PaymentLink } from './link.entity';
import { EXACTLY_ONE, type CreatePaymentLinkBody, type PaymentLinkWire, type UpdatePaymentLinkBody } from './link.schemas';

export type { PaymentLinkWire };

export interface CreateLinkInput {
  amount: bigint | null;
  chooses: { minimum: bigint; maximum: bigint } | null;
  currency: string;
  country: string;
  description: string | null;
  allowedMethods: string[] | null;
  reusable: boolean;
  completionLimit: number | null;
  expiresAt: Date | null;
  returnUrl: string | null;
  metadata: Record<string, string> | null;
}

export interface UpdateLinkInput {
  description?: string | null;
  active?: boolean;
  completionLimit?: number | null;
  expiresAt?: Date | null;
}

const blankToNull = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === '' ? null : v);

function futureInstant(value: string, param: string, now: number): Date {
  const ms = parseIsoInstant(value, param);
  if (ms <= now) throw ApiError.validation(param, `${param} must be in the future.`);
  return new Date(ms);
}

function methodsOf(names: readonly string[] | null | undefined): string[] | null {
  if (names === undefined || names === null) return null;
  const out = [...new Set(names.map((n) => n.trim().toLowerCase()))];
  const unknown = out.find((n) => !(PAYMENT_METHODS as readonly string[]).includes(n));
  if (unknown !== undefined) {
    throw ApiError.validation('allowed_methods', `allowed_methods: "${unknown}" is not a payment method of this service (${PAYMENT_METHODS.join(', ')}).`);
  }
  return out;
}

/** Normalises a create body the schema accepted, with the rules the schema cannot say. */
export function parseCreateLink(body: CreatePaymentLinkBody, now = Date.now()): CreateLinkInput {
  const fixed = body.amount ?? null;
  const chooses = body.customer_chooses ?? null;
  if ((fixed === null) === (chooses === null)) {
    throw ApiError.validation('amount', EXACTLY_ONE); // the schema says so too; kept for callers that skip it
  }
  const range = chooses ? { minimum: amountOf(chooses.minimum), maximum: amountOf(chooses.maximum) } : null;
  if (range && range.minimum > range.maximum) throw ApiError.validation('customer_chooses.maximum', 'customer_chooses.maximum must not be below minimum.');
  const reusable = body.reusable ?? true;
  const limit = body.completion_limit ?? null;
  if (!reusable && limit !== null && limit !== 1)
    throw ApiError.validation('completion_limit', 'A single-use link (reusable false) takes one payment: completion_limit must be 1 or omitted.');
  return {
    amount: fixed === null ? null : amountOf(fixed),
    chooses: range,
    currency: upper(body.currency),
    country: upper(body.country),
    description: blankToNull(body.description),
    allowedMethods: methodsOf(body.allowed_methods),
    reusable,
    completionLimit: reusable ? limit : 1,
    expiresAt: body.expires_at ? futureInstant(body.expires_at, 'expires_at', now) : null,
    returnUrl: body.return_url ?? null,
    metadata: body.metadata && Object.keys(body.metadata).length > 0 ? body.metadata : null,
  };
}

/** Normalises an update body; absent fields stay as they are, null clears. */
export function parseUpdateLink(body: UpdatePaymentLinkBody, now = Date.now()): UpdateLinkInput {
  const out: UpdateLinkInput = {};
  if (body.description !== undefined) out.description = blankToNull(body.description);
  if (body.active !== undefined) out.active = body.active;
  if (body.completion_limit !== undefined) out.completionLimit = body.completion_limit;
  if (body.expires_at !== undefined) out.expiresAt = body.expires_at === null ? null : futureInstant(body.expires_at, 'expires_at', now);
  return out;
}

/** Why a link takes no new payment now, or null when it does. */
export function closedReason(link: PaymentLink, now: Date): 'inactive' | 'expired' | 'completed' | null {
  if (!link.active) return 'inactive';
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (link.completionLimit !== null && link.completedCount >= link.completionLimit) return 'completed';
  return null;
}

export function linkToWire(link: PaymentLink, baseUrl: string): PaymentLinkWire {
  return {
    object: 'payment_link',
    id: link.id,
    url: `${baseUrl.replace(/\/+$/, '')}/pay/${link.token}`,
    active: link.active,
    amount: link.amount === null ? null : formatAmount(link.amount),
    currency: link.currency,
    country: link.country,
    description: link.description,
    customer_chooses:
      link.minAmount !== null && link.maxAmount !== null ? { minimum: formatAmount(link.minAmount), maximum: formatAmount(link.maxAmount) } : null,
    allowed_methods: link.allowedMethods,
    reusable: link.reusable,
    completion_limit: link.completionLimit,
    completed_count: link.completedCount,
    expires_at: link.expiresAt ? isoInstant(link.expiresAt) : null,
    return_url: link.returnUrl,
    metadata: link.metadata ?? {},
    environment: link.environment,
    created_at: isoInstant(link.createdAt),
    updated_at: isoInstant(link.updatedAt),
  };
}
