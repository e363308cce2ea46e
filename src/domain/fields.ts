/**
 * The schema building blocks that several operations share (TypeBox, i.e. JSON Schema).
 * Every limit is written here or in the module's `x.schemas.ts`, once: the same schema
 * validates the request (src/domain/schema.ts) and is published in the OpenAPI document.
 * Patterns accept what the service normalises (surrounding spaces, lower case); the
 * operation's parse then normalises.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { MAX_AMOUNT_DIGITS } from './money';
import { CANCEL_REASON_MAX, type TestFailure } from './validation';
import { COUNTRIES, CURRENCY_MINOR_UNITS } from './iso-codes';

/** A closed object: unknown fields are a validation_error naming the field. */
export function Obj<P extends TProperties>(properties: P, options: Record<string, unknown> = {}): TObject<P> {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** Minor units: ASCII digits, greater than zero, at most 30 significant digits. */
export const Amount = Type.String({
  pattern: `^0*[1-9][0-9]{0,${MAX_AMOUNT_DIGITS - 1}}$`,
  'x-expected': 'a string of digits in minor units greater than zero, for example "1000"',
  description: `Minor units: ASCII digits, greater than zero, at most ${MAX_AMOUNT_DIGITS} significant digits; leading zeros are normalised away.`,
});

/**
 * A pattern matching exactly `codes`, in any case, with surrounding spaces: what the service
 * accepts before it trims and upper-cases. Written out (`[Tt][Hh][Bb]`, grouped by first
 * letter) so that a client or a generator following the pattern sends a supported code.
 */
export function codePattern(codes: Iterable<string>): string {
  const anyCase = (c: string) => (/[A-Z]/.test(c) ? `[${c}${c.toLowerCase()}]` : c);
  const byFirst = new Map<string, string[]>();
  for (const code of [...codes].sort()) byFirst.set(code[0], [...(byFirst.get(code[0]) ?? []), code.slice(1)]);
  const groups = [...byFirst].map(([first, rests]) => `${anyCase(first)}(?:${rests.map((r) => [...r].map(anyCase).join('')).join('|')})`);
  return `^\\s*(?:${groups.join('|')})\\s*$`;
}

export const Currency = Type.String({
  pattern: codePattern(CURRENCY_MINOR_UNITS.keys()),
  maxLength: 32,
  examples: ['THB'],
  'x-expected': 'an ISO 4217 code or token symbol of 3 to 6 letters such as "THB"',
  'x-messages': {
    pattern: 'currency must be a supported currency: an ISO 4217 code in circulation such as "THB", or USDC or USDT.',
  },
  description:
    'A supported ISO 4217 code in circulation (or the token symbols USDC, USDT); the pattern lists them all. Any case, surrounding spaces allowed; trimmed and upper-cased.',
});

export const Country = Type.String({
  pattern: codePattern(COUNTRIES),
  maxLength: 32,
  examples: ['TH'],
  'x-expected': 'an ISO 3166-1 alpha-2 code such as "TH"',
  'x-messages': { pattern: 'country is not an ISO 3166-1 alpha-2 country code such as "TH".' },
  description: 'An ISO 3166-1 alpha-2 code; the pattern lists them all. Any case, surrounding spaces allowed; trimmed and upper-cased.',
});

/** A character that is not a control character (C0, DEL, C1). */
const TEXT_CHAR = '[^\\u0000-\\u001f\\u007f-\\u009f]';
/** Spaces that are not control characters (what `\s` matches besides tab, line feed and the like). */
const SPACE = '[ \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
/** What free text may not hold, for the error message (src/domain/schema.ts). */
export const TEXT_RULE = 'no control characters (U+0000 to U+001F, U+007F to U+009F)';

/** Free text: no control characters. The pattern says so; `x-text` names the rule for the error message. */
export const TEXT = { pattern: `^${TEXT_CHAR}*$`, 'x-text': TEXT_RULE } as const;

/**
 * Free text that is not blank: at least one character that is neither a space nor a control
 * character, and no control character. (Written so that a regex engine never backtracks.)
 */
export const NON_BLANK_TEXT = { pattern: `^${SPACE}*[^\\s\\u0000-\\u001f\\u007f-\\u009f]${TEXT_CHAR}*$`, 'x-text': TEXT_RULE } as const;

export const MerchantReference = Type.String({
  minLength: 1,
  maxLength: 256,
  ...TEXT,
  description: "The merchant's own reference; unique per merchant and environment.",
});

/** Accepted anywhere at the root of a body and ignored: the API key alone decides the environment. */
export const IgnoredEnvironment = Type.Optional(Type.Unknown({ description: 'Accepted and ignored: the API key alone decides the environment.' }));

/** approve, succeed, expire: no fields. The body may be absent. */
export const EmptyBody = Obj({ environment: IgnoredEnvironment }, { title: 'EmptyBody' });

export const CancelBody = Obj(
  {
    reason: Type.Optional(
      Type.String({
        maxLength: CANCEL_REASON_MAX,
        ...TEXT,
        description: `Why; at most ${CANCEL_REASON_MAX} characters (code points). Blank means none.`,
      }),
    ),
    environment: IgnoredEnvironment,
  },
  { title: 'CancelBody' },
);

export const TestFailureBody = Obj(
  {
    failure_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', 'x-expected': 'a snake_case code' })),
    failure_message: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, ...TEXT })),
    environment: IgnoredEnvironment,
  },
  { title: 'TestFailureBody' },
);

/** A cancel's reason: blank means none. */
export function cancelReason(body: Static<typeof CancelBody>): { reason: string | null } {
  const reason = body.reason;
  return { reason: reason === undefined || reason.trim() === '' ? null : reason };
}

/**
 * A test helper's `fail` body as a provider outcome. Without a code the resource's default
 * applies; a code alone gets "<Noun> failed: <code>."
 */
export function testFailure(
  body: Static<typeof TestFailureBody>,
  fallback: TestFailure,
  noun: string,
): { status: 'failed'; failureCode: string; failureMessage: string } {
  const code = body.failure_code;
  return {
    status: 'failed',
    failureCode: code ?? fallback.failure_code,
    failureMessage: body.failure_message ?? (code ? `${noun} failed: ${code}.` : fallback.failure_message),
  };
}

/** Surrounding spaces trimmed, upper-cased (currency, country, bank codes). */
export const upper = (v: string): string => v.trim().toUpperCase();

/** An amount the schema accepted ("000123" -> 123n). */
export const amountOf = (v: string): bigint => BigInt(v);

/** True when a body of this schema may be absent (no required field). */
export function bodyMayBeAbsent(schema: TSchema): boolean {
  return !Array.isArray(schema.required) || schema.required.length === 0;
}

// Building blocks of the answers (what the wire records look like).
export const AmountText = Type.String({ pattern: '^[0-9]+$', description: 'Minor units, as a string of digits.' });
export const Instant = Type.String({ format: 'date-time' });
export const EnvironmentName = Type.Union([Type.Literal('test'), Type.Literal('live')]);
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const OneOf = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

/**
 * Who acted, as approvals, audit entries, events and webhooks name them: an API key (`restricted`
 * says whether it is a restricted rk_ key) or a signed-in member (with the email at the time).
 */
export const ActorSchema = Type.Union(
  [
    Type.Object(
      { type: Type.Literal('api_key'), id: Type.String({ description: 'The key id (key_...).' }), restricted: Type.Boolean() },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('member'), id: Type.String({ description: 'The user id (usr_...).' }), email: Type.String() },
      { additionalProperties: false },
    ),
  ],
  { description: 'An API key (restricted or not) or a member of the team.' },
);

/** The actor of an event or audit entry: null for changes no API caller made (the scheduler, a provider, the payer's page). */
export const NullableActor = Type.Union([ActorSchema, Type.Null()], {
  description: "Who caused it: an API key or a member; null when no API caller did (the scheduler, a provider's settlement, the payer's page).",
});
