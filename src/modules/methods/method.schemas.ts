/**
 * The methods module's schemas: the discovery query (GET /v1/payment_method_options and the
 * GraphQL arguments mapped onto it), the method-setting body, the wire records (and their
 * types), the components the module publishes (with `NextAction`, whose shapes are in
 * next-action.ts), and what each route publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Amount, AmountText, Country, Currency, IgnoredEnvironment, Nullable, Obj } from '../../domain/fields';
import { answer, commonFailures, failure, invalidWhen, pageOf, type RouteDoc, writeFailures } from '../../http/route-docs';
import { Literals } from '../shared/wire-schema';
import { CHECKOUT_MODES, PAYER_FIELDS, PAYMENT_METHODS, type PayerField } from './catalogue';
import { NEXT_ACTION_TYPES, NextActionSchema } from './next-action';

/** `direct` -> `[dD][iI][rR][eE][cC][tT]`: what `toLowerCase()` then an exact match accepts. */
function anyCase(word: string): string {
  return [...word].map((ch) => (/[a-z]/.test(ch) ? `[${ch}${ch.toUpperCase()}]` : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
}

/** Provider codes a merchant may pin discovery to: 1 to 64 of these, once trimmed and lower-cased. */
export const PROVIDER_PIN_MAX = 64;

export const DiscoveryQuery = Type.Object(
  {
    amount: Type.Optional(
      Type.String({
        pattern: Amount.pattern,
        'x-expected': Amount['x-expected'] as string,
        description: `${Amount.description} Requires currency: amounts are minor units of a currency.`,
      }),
    ),
    currency: Type.Optional(Currency),
    country: Type.Optional(Country),
    checkout_mode: Type.Optional(
      Type.String({
        maxLength: 32,
        pattern: `^\\s*(?:${CHECKOUT_MODES.map(anyCase).join('|')})\\s*$`,
        'x-expected': `one of: ${CHECKOUT_MODES.join(', ')}`,
        description: `${CHECKOUT_MODES.join(' or ')}, default direct; trimmed, any case.`,
      }),
    ),
    provider: Type.Optional(
      Type.String({
        maxLength: 128,
        pattern: `^\\s*[A-Za-z0-9_-]{1,${PROVIDER_PIN_MAX}}\\s*$`,
        'x-expected': `1 to ${PROVIDER_PIN_MAX} letters, digits, "-" or "_"`,
        description: 'Strict pin to one provider; trimmed and lower-cased. An unknown provider gives an empty list.',
      }),
    ),
    environment: Type.Optional(Type.String({ description: 'Accepted and ignored: the API key alone decides the environment.' })),
  },
  {
    additionalProperties: false,
    // JSON Schema draft-07 spelling (what the validator reads): amount needs currency. The
    // document publishes it as the operation's `x-dependentRequired` (src/http/openapi.ts).
    dependencies: { amount: ['currency'] },
  },
);
export type DiscoveryQuery = Static<typeof DiscoveryQuery>;

export const UpdatePaymentMethodSettingBody = Obj(
  {
    enabled: Type.Boolean({
      description: "true: the merchant offers the method in the key's environment; false: routing and discovery leave it out.",
    }),
    environment: IgnoredEnvironment,
  },
  { title: 'UpdatePaymentMethodSetting' },
);
export type UpdatePaymentMethodSettingBody = Static<typeof UpdatePaymentMethodSettingBody>;

// ---- wire records ----

const payerRequirement = () => Type.Optional(Type.Object({ required: Type.Literal(true) }, { additionalProperties: false }));

export const PaymentMethodOptionSchema = Type.Object(
  {
    object: Type.Literal('payment_method_option'),
    payment_method: Literals(PAYMENT_METHODS),
    bank: Nullable(Type.String({ description: 'Provider-neutral bank code.' })),
    display_name: Type.String(),
    next_action_type: Nullable(Literals(NEXT_ACTION_TYPES)),
    min_amount: Nullable(AmountText),
    max_amount: Nullable(AmountText),
    options: Type.Object(
      {
        payer: Type.Object(Object.fromEntries(PAYER_FIELDS.map((f) => [f, payerRequirement()])) as Record<PayerField, ReturnType<typeof payerRequirement>>, {
          additionalProperties: false,
          description: 'Payer data the method needs, under the discovery names; a field is absent when not needed.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'PaymentMethodOption',
    additionalProperties: false,
    description: 'One eligible (method, bank) choice; bank is null for methods without a bank choice. Which provider serves it is never shown.',
  },
);
export type PaymentMethodOptionWire = Static<typeof PaymentMethodOptionSchema>;

export const PaymentMethodSettingSchema = Type.Object(
  {
    object: Type.Literal('payment_method_setting'),
    payment_method: Literals(PAYMENT_METHODS),
    display_name: Type.String(),
    enabled: Type.Boolean(),
    updated_at: Nullable(Type.String({ format: 'date-time', description: 'Null while the catalogue default (enabled) applies.' })),
  },
  {
    $id: 'PaymentMethodSetting',
    additionalProperties: false,
    description: "Whether the merchant offers a method in the key's environment.",
  },
);
export type PaymentMethodSettingWire = Static<typeof PaymentMethodSettingSchema>;

export const METHOD_MODELS = [NextActionSchema, PaymentMethodOptionSchema, PaymentMethodSettingSchema];

// ---- routes ----

export const METHOD_ROUTES = {
  discover: {
    operationId: 'listPaymentMethodOptions',
    permission: 'payment_intents:read',
    summary: 'Eligible payment methods and bank choices (provider-neutral). Empty data when nothing is eligible.',
    description: 'The whole result is one page: has_more is false and next_cursor null. amount requires currency.',
    responses: {
      200: pageOf('PaymentMethodOption', 'Everything eligible, in catalogue order, as one page.'),
      ...commonFailures,
      400: invalidWhen({ currency: "missing while amount is given (the operation's `x-dependentRequired`)" }),
    },
  },
  listSettings: {
    operationId: 'listPaymentMethodSettings',
    permission: 'payment_intents:read',
    summary: "Every method of the catalogue and whether the merchant offers it in the key's environment.",
    responses: {
      200: Type.Object({ data: Type.Array(Type.Ref('PaymentMethodSetting')) }, { description: 'One setting per catalogue method.' }),
      401: commonFailures[401],
      503: commonFailures[503],
    },
  },
  updateSetting: {
    operationId: 'updatePaymentMethodSetting',
    permission: 'payment_intents:write',
    summary: "Enable or disable a method for the merchant in the key's environment.",
    description: `payment_method is one of: ${PAYMENT_METHODS.join(', ')}.`,
    responses: {
      200: answer('The setting.', 'PaymentMethodSetting'),
      ...writeFailures,
      404: failure('not_found: no such payment method.'),
    },
  },
} satisfies Record<string, RouteDoc>;
