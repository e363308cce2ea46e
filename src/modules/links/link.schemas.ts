/**
 * The payment links' schemas: the create and update bodies (validated by the pipeline for
 * REST and GraphQL alike), the wire record and its type, the listing, and what each route
 * publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Amount, AmountText, Country, Currency, EnvironmentName, IgnoredEnvironment, Instant, Nullable, Obj, TEXT } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { answer, failure, invalidWhen, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { PAYMENT_METHODS } from '../methods/catalogue';
import { Metadata, ReturnUrl } from '../payments/payment-request.schemas';

export const DESCRIPTION_MAX = 500;
export const COMPLETION_LIMIT_MAX = 1_000_000;

const Description = Type.String({
  maxLength: DESCRIPTION_MAX,
  ...TEXT,
  description: `Shown to the payer; at most ${DESCRIPTION_MAX} characters. Blank or null means none.`,
});
const CompletionLimit = Type.Integer({
  minimum: 1,
  maximum: COMPLETION_LIMIT_MAX,
  description: 'How many succeeded payments the link takes; null = no limit. A single-use link (reusable false) has 1.',
});
const ExpiresAt = Type.String({
  format: 'date-time',
  examples: ['2099-12-31T23:59:59Z'],
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:\\d{2})$',
  'x-expected': 'an ISO 8601 date-time with an offset, e.g. 2026-12-31T23:59:59.000Z',
  description:
    'When the link stops taking new payments: an ISO 8601 date-time with an offset, in the future (a time already past is 400 validation_error naming expires_at). Null = never.',
});

/** `promptpay` -> `[pP][rR]...`: the name in any case. */
const anyCase = (word: string) => [...word].map((ch) => (/[a-z]/.test(ch) ? `[${ch}${ch.toUpperCase()}]` : ch)).join('');

const NOT_NULL = { not: { type: 'null' } };
export const EXACTLY_ONE = 'Give exactly one of amount (a fixed amount) and customer_chooses ({ minimum, maximum }).';

export const CreatePaymentLinkBody = Obj(
  {
    amount: Type.Optional(Nullable({ ...Amount, description: `${Amount.description} A fixed amount; exactly one of amount and customer_chooses.` })),
    currency: Currency,
    country: Country,
    description: Type.Optional(Nullable(Description)),
    customer_chooses: Type.Optional(
      Nullable(
        Obj(
          {
            minimum: { ...Amount, examples: ['10000'] },
            maximum: {
              ...Amount,
              examples: ['500000'],
              description: `${Amount.description} Not below minimum (400 validation_error naming customer_chooses.maximum).`,
            },
          },
          { description: 'The payer enters the amount, between minimum and maximum (minor units, inclusive); exactly one of amount and customer_chooses.' },
        ),
      ),
    ),
    allowed_methods: Type.Optional(
      Nullable(
        Type.Array(
          // The names (enum); the same names in any case with surrounding spaces are accepted too, and normalised.
          Type.Unsafe<string>({
            anyOf: [
              { type: 'string', enum: [...PAYMENT_METHODS] },
              { type: 'string', maxLength: 64, pattern: `^\\s*(?:${PAYMENT_METHODS.map(anyCase).join('|')})\\s*$` },
            ],
            description: `A payment method of this service: ${PAYMENT_METHODS.join(', ')} (any case; trimmed and lower-cased).`,
          }),
          {
            minItems: 1,
            maxItems: PAYMENT_METHODS.length,
            description: `Method names the payer may choose from (${PAYMENT_METHODS.join(', ')}); omitted or null: every method eligible for the payment.`,
          },
        ),
      ),
    ),
    reusable: Type.Optional(Nullable(Type.Boolean({ description: 'Default true; false makes a single-use link (completion_limit 1).' }))),
    completion_limit: Type.Optional(Nullable(CompletionLimit)),
    expires_at: Type.Optional(Nullable(ExpiresAt)),
    return_url: Type.Optional(Nullable({ ...ReturnUrl, description: `${ReturnUrl.description} Where the checkout sends the payer after paying.` })),
    metadata: Type.Optional(Nullable(Metadata)),
    environment: IgnoredEnvironment,
  },
  {
    title: 'CreatePaymentLink',
    // Exactly one of amount and customer_chooses: not both, and not neither.
    // (Only of an object; a field of the wrong type is reported by its own rule.)
    not: {
      anyOf: [
        { type: 'object', required: ['amount', 'customer_chooses'], properties: { amount: NOT_NULL, customer_chooses: NOT_NULL } },
        {
          type: 'object',
          not: {
            anyOf: [
              { required: ['amount'], properties: { amount: NOT_NULL } },
              { required: ['customer_chooses'], properties: { customer_chooses: NOT_NULL } },
            ],
          },
        },
      ],
    },
    'x-messages': { not: EXACTLY_ONE },
    'x-param': 'amount',
  },
);
export type CreatePaymentLinkBody = Static<typeof CreatePaymentLinkBody>;

export const UpdatePaymentLinkBody = Obj(
  {
    description: Type.Optional(Nullable(Description)),
    active: Type.Optional(Type.Boolean({ description: 'false deactivates the link (its page answers 410); true activates it again.' })),
    completion_limit: Type.Optional(Nullable({ ...CompletionLimit, description: `${CompletionLimit.description} Not below completed_count.` })),
    expires_at: Type.Optional(Nullable(ExpiresAt)),
    environment: IgnoredEnvironment,
  },
  { title: 'UpdatePaymentLink' },
);
export type UpdatePaymentLinkBody = Static<typeof UpdatePaymentLinkBody>;

export const PAYMENT_LINK_LIST: ListSpec = { resource: 'payment_link', statuses: [], noMerchantReference: true };

export const PaymentLinkSchema = Type.Object(
  {
    object: Type.Literal('payment_link'),
    id: Type.String(),
    url: Type.String({ description: 'PUBLIC_BASE_URL/pay/<token>: the page the payer opens. The token is random and names nothing else.' }),
    active: Type.Boolean({ description: 'False once deactivated. An active link can still be closed by its limit or expiry.' }),
    amount: Nullable({ ...AmountText, description: 'The fixed amount; null when the payer chooses it.' }),
    currency: Type.String(),
    country: Type.String(),
    description: Nullable(Type.String()),
    customer_chooses: Nullable(Type.Object({ minimum: AmountText, maximum: AmountText }, { additionalProperties: false })),
    allowed_methods: Nullable(Type.Array(Type.String(), { description: 'Null: every method eligible for the payment.' })),
    reusable: Type.Boolean(),
    completion_limit: Nullable(Type.Integer()),
    completed_count: Type.Integer({ description: 'Succeeded payments made through the link; never above completion_limit.' }),
    expires_at: Nullable(Instant),
    return_url: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    environment: EnvironmentName,
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'PaymentLink', additionalProperties: false },
);
export type PaymentLinkWire = Static<typeof PaymentLinkSchema>;

const record = (description: string) => answer(description, 'PaymentLink');

export const PAYMENT_LINK_ROUTES = {
  create: {
    operationId: 'createPaymentLink',
    permission: 'payment_links:write',
    summary: 'Create a payment link: a page (url) where a payer pays a fixed or chosen amount through the hosted checkout.',
    responses: {
      201: record('Created.'),
      ...writeFailures,
      400: invalidWhen({
        'customer_chooses.maximum': 'below customer_chooses.minimum',
        expires_at: 'not in the future',
        completion_limit: 'other than 1 on a single-use link (reusable false)',
      }),
      422: failure('payment_method_unavailable: none of the allowed methods (or no method at all) is available for this currency, country and amount.'),
    },
  },
  list: {
    operationId: 'listPaymentLinks',
    permission: 'payment_links:read',
    summary: 'List payment links, newest first.',
    responses: { 200: pageOf('PaymentLink'), ...readFailures },
  },
  get: {
    operationId: 'getPaymentLink',
    permission: 'payment_links:read',
    summary: 'Retrieve a payment link.',
    responses: { 200: record('The payment link.'), ...readFailures },
  },
  update: {
    operationId: 'updatePaymentLink',
    permission: 'payment_links:write',
    summary: 'Update a payment link: any of description, active (false deactivates), completion_limit, expires_at.',
    responses: {
      200: record('Updated.'),
      ...writeFailures,
      400: invalidWhen({
        completion_limit: "below the link's completed_count, or other than 1 on a single-use link",
        expires_at: 'not in the future',
      }),
    },
  },
  qr: {
    operationId: 'getPaymentLinkQr',
    permission: 'payment_links:read',
    summary: "The link's url as a QR code (SVG): any phone camera opens the payment page. Not a PromptPay code.",
    responses: { 200: Type.String({ description: 'image/svg+xml' }), ...readFailures },
  },
} satisfies Record<string, RouteDoc>;
