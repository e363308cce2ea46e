/**
 * The payment intent create body (validated by the pipeline for REST and GraphQL alike)
 * and its field schemas.
 *
 * Every limit of a payment field is written here once. The field schemas describe the
 * input as sent, including what `parseCreatePayment` (payment.input.ts) then normalises;
 * the hosted checkout page's form reuses them (`parseCheckoutForm`). `null` is accepted
 * for every optional field and means "omitted".
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Amount, Country, Currency, IgnoredEnvironment, MerchantReference, Nullable, NON_BLANK_TEXT, Obj, TEXT } from '../../domain/fields';
import { CHECKOUT_MODES, PAYMENT_METHODS } from '../methods/catalogue';
/** Separators a phone number may carry: removed before the E.164 check. */
export const PHONE_SEPARATORS = '[\\s().-]';
/** Separators an account number may carry: removed before the digit check. */
export const ACCOUNT_NUMBER_SEPARATORS = '[\\s-]';
/** What remains of an account number once the separators are removed. */
export const ACCOUNT_NUMBER_DIGITS = { min: 6, max: 20 } as const;
/** E.164: + and 7 to 15 digits, the first not 0. */
export const E164 = '^\\+[1-9][0-9]{6,14}$';
/** Thai script (U+0E00-U+0E7F), spaces and dots; the first character Thai. */
export const THAI_NAME = '^[\\u0E00-\\u0E7F][\\u0E00-\\u0E7F .]*$';

const FREE_TEXT = 'Surrounding spaces are trimmed and runs of spaces collapsed to one; the limit counts the characters as sent.';

/** A name (payer, account holder): not blank. */
const PersonName = Type.String({
  maxLength: 256,
  ...NON_BLANK_TEXT,
  'x-expected': 'a name that is not blank',
  description: FREE_TEXT,
});

export const CustomerName = PersonName;

export const CustomerEmail = Type.String({
  maxLength: 254,
  pattern: '^\\s*[^\\s@]+@[^\\s@.]+(?:\\.[^\\s@.]+)*\\.[A-Za-z]{2,}\\s*$',
  'x-expected': 'an e-mail address such as somchai@example.com',
  description: 'An e-mail address whose domain ends in a label of at least two letters; trimmed, the domain lower-cased.',
});

export const CustomerPhone = Type.String({
  maxLength: 32,
  pattern: `^${PHONE_SEPARATORS}*\\+${PHONE_SEPARATORS}*[1-9](?:${PHONE_SEPARATORS}*[0-9]){6,14}${PHONE_SEPARATORS}*$`,
  'x-expected': 'an international (E.164) number starting with + and the country code, such as +66812345678',
  description: `E.164 (${E164}) once spaces, hyphens, dots and brackets are removed, e.g. "+66 81-234-5678"; stored without them.`,
});

export const CustomerReference = Type.String({
  maxLength: 256,
  ...NON_BLANK_TEXT,
  'x-expected': 'a reference that is not blank',
  description: "The merchant's id for the payer; trimmed. No control characters.",
});

export const AccountName = PersonName;

export const AccountNumber = Type.String({
  maxLength: 64,
  pattern: `^${ACCOUNT_NUMBER_SEPARATORS}*(?:[0-9]${ACCOUNT_NUMBER_SEPARATORS}*){${ACCOUNT_NUMBER_DIGITS.min},${ACCOUNT_NUMBER_DIGITS.max}}$`,
  'x-expected': `${ACCOUNT_NUMBER_DIGITS.min} to ${ACCOUNT_NUMBER_DIGITS.max} digits (spaces and hyphens are ignored)`,
  description: `${ACCOUNT_NUMBER_DIGITS.min} to ${ACCOUNT_NUMBER_DIGITS.max} digits once spaces and hyphens are removed; stored without them, encrypted.`,
});

export const Bank = Type.String({
  maxLength: 64,
  pattern: '^\\s*[A-Za-z][A-Za-z0-9_]{1,31}\\s*$',
  'x-expected': 'a bank code such as KBANK',
  description: 'Provider-neutral bank code from discovery, e.g. KBANK: 2 to 32 letters, digits or "_", the first a letter; trimmed and upper-cased.',
});

export const NameTh = Type.String({
  maxLength: 256,
  pattern: '^\\s*[\\u0E00-\\u0E7F][\\u0E00-\\u0E7F\\s.]*$',
  'x-expected': 'the name in Thai script, such as สมชาย ใจดี',
  description: `Thai script (U+0E00 to U+0E7F), spaces and dots, starting with a Thai character. ${FREE_TEXT}`,
});

export const PaymentMethodName = Type.String({
  maxLength: 64,
  pattern: '^\\s*[A-Za-z][A-Za-z0-9_]{0,39}\\s*$',
  'x-expected': 'a method name such as promptpay',
  description:
    `A method name (1 to 40 letters, digits or "_"; trimmed and lower-cased). This service's methods: ${PAYMENT_METHODS.join(', ')}; ` +
    'another well-formed name is 422 payment_method_unavailable. Omit it (or send null) to let the service pick; must be omitted in hosted checkout.',
});

const hostedPattern = '[Hh][Oo][Ss][Tt][Ee][Dd]';
export const CheckoutModeField = Type.String({
  maxLength: 32,
  pattern: `^\\s*(?:[Dd][Ii][Rr][Ee][Cc][Tt]|${hostedPattern})\\s*$`,
  'x-expected': `one of: ${CHECKOUT_MODES.join(', ')}`,
  description: `${CHECKOUT_MODES.join(' or ')} (default direct); trimmed, case-insensitive.`,
});

const ipv4Part = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const label = (first: string) => `(?![Xx][Nn]--)${first}(?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?`;
const host = `(?:(?:${label('[A-Za-z0-9]')}\\.)*${label('[A-Za-z]')}\\.?|(?:${ipv4Part}\\.){3}${ipv4Part})`;
const port = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?';

export const ReturnUrl = Type.String({
  maxLength: 2048,
  pattern: `^[Hh][Tt][Tt][Pp][Ss]?://${host}${port}(?:[/?#]\\S*)?$`,
  'x-expected': 'an absolute http or https URL without credentials, such as https://shop.example/return',
  description:
    'An absolute http or https URL: a host name (ASCII letters, digits and hyphens, the last label starting with a letter, no xn-- labels) or an IPv4 address, ' +
    'an optional port, then an optional path, query or fragment without whitespace. No user name or password. Stored as sent.',
});

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;
export const Metadata = Type.Record(Type.String(), Type.String({ maxLength: METADATA_LIMITS.valueLength, ...TEXT }), {
  maxProperties: METADATA_LIMITS.keys,
  propertyNames: {
    ...TEXT,
    minLength: 1,
    maxLength: METADATA_LIMITS.keyLength,
    'x-expected': `metadata keys are 1 to ${METADATA_LIMITS.keyLength} characters`,
  },
  description: `String keys (1 to ${METADATA_LIMITS.keyLength} characters without control characters, kept as sent) to string values (at most ${METADATA_LIMITS.valueLength} characters); at most ${METADATA_LIMITS.keys} keys. Empty means none.`,
});

export const DeviceFingerprint = Type.String({ minLength: 1, maxLength: 512, ...TEXT, description: 'Stored and fingerprinted as sent.' });
export const ExternalReference = Type.String({ minLength: 1, maxLength: 256, ...TEXT, description: 'Stored and fingerprinted as sent.' });

/** "An object none of whose fields (all listed) has a value": `not` of it is "at least one field set". */
const allNull = (names: readonly string[]): TSchema =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(names.map((n) => [n, { type: 'null' }])),
  }) as unknown as TSchema;

const CUSTOMER_FIELDS = ['name', 'email', 'phone', 'reference'] as const;
export const Customer = Obj(
  {
    name: Type.Optional(Nullable(CustomerName)),
    email: Type.Optional(Nullable(CustomerEmail)),
    phone: Type.Optional(Nullable(CustomerPhone)),
    reference: Type.Optional(Nullable(CustomerReference)),
  },
  {
    not: allNull(CUSTOMER_FIELDS),
    'x-messages': { not: 'customer must contain at least one of name, email, phone, reference.' },
    description: 'Payer identity and contact details: at least one field with a value.',
  },
);

const OPTION_FIELDS = ['account_name', 'account_number', 'bank', 'name_th'] as const;
const DISCOVERY_PAYER_HINT =
  'payment_method_options.payer is the discovery object, which must not be sent back. Map each options.payer field to its create-request path: ' +
  'customer_name -> customer.name, customer_phone -> customer.phone, account_name -> payment_method_options.account_name, ' +
  'account_number -> payment_method_options.account_number, bank -> payment_method_options.bank, name_th -> payment_method_options.name_th.';
export const PaymentMethodOptions = Obj(
  {
    account_name: Type.Optional(Nullable(AccountName)),
    account_number: Type.Optional(Nullable(AccountNumber)),
    bank: Type.Optional(Nullable(Bank)),
    name_th: Type.Optional(Nullable(NameTh)),
  },
  {
    'x-unknown': { payer: DISCOVERY_PAYER_HINT },
    description:
      'Route inputs for the selected method (discovery options.payer fields under their create-request paths). Which of them a method needs depends on the method, ' +
      'bank and amount (discovery lists them); a missing one is 400 naming its path. Must be omitted (or empty) in hosted checkout.',
  },
);

/** checkout_mode hosted: the payer chooses on the hosted page, so the request names no method and no options. */
const hostedRule = {
  if: { properties: { checkout_mode: { type: 'string', pattern: `^\\s*${hostedPattern}\\s*$` } }, required: ['checkout_mode'] },
  then: {
    properties: {
      payment_method: {
        type: 'null',
        'x-messages': { type: 'Omit payment_method with checkout_mode hosted: the payer chooses the method on the hosted page.' },
      },
      payment_method_options: {
        not: { type: 'object', not: allNull(OPTION_FIELDS) },
        'x-messages': {
          not: 'Omit payment_method_options with checkout_mode hosted: the hosted page collects what the chosen method needs.',
        },
      },
    },
  },
};

export const CreatePaymentIntentBody = Obj(
  {
    amount: Amount,
    currency: Currency,
    country: Country,
    merchant_reference: MerchantReference,
    customer: Customer,
    checkout_mode: Type.Optional(Nullable(CheckoutModeField)),
    payment_method: Type.Optional(Nullable(PaymentMethodName)),
    payment_method_options: Type.Optional(Nullable(PaymentMethodOptions)),
    return_url: Type.Optional(Nullable(ReturnUrl)),
    metadata: Type.Optional(Nullable(Metadata)),
    device_fingerprint: Type.Optional(Nullable(DeviceFingerprint)),
    external_reference: Type.Optional(Nullable(ExternalReference)),
    environment: IgnoredEnvironment,
  },
  {
    title: 'CreatePaymentIntent',
    ...hostedRule,
    'x-unknown': {
      options: "options is the discovery record's field and must not be sent back; put payer data under customer and payment_method_options.",
    },
  },
);
export type CreatePaymentIntentBody = Static<typeof CreatePaymentIntentBody>;
