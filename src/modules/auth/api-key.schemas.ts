/**
 * API key management's schemas: the create and roll bodies (validated by the pipeline for REST
 * and GraphQL alike), the wire records, and what each route publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EmptyBody, EnvironmentName, IgnoredEnvironment, Instant, Nullable, Obj } from '../../domain/fields';
import { RESOURCES } from '../../domain/permissions';
import { answer, failure, readFailures, writeFailures, type RouteDoc } from '../../http/route-docs';

/** The longest overlap a roll allows: 7 days. */
export const MAX_OVERLAP_HOURS = 168;
/** The overlap when the roll names none. */
export const DEFAULT_OVERLAP_HOURS = 24;

const PERMISSION_ITEM = Type.String({
  pattern: `^\\s*(${RESOURCES.join('|')}):(none|read|write)\\s*$`,
  'x-expected': 'a permission such as payout_intents:read or balances:write',
});

export const CreateApiKeyBody = Obj(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '\\S',
        'x-expected': 'a name of 1 to 100 characters, e.g. "Checkout server"',
        description: 'A name people know the key by (shown wherever the key is named, e.g. the audit log); a roll keeps it.',
      }),
    ),
    permissions: Type.Optional(
      Type.Array(PERMISSION_ITEM, {
        maxItems: 3 * RESOURCES.length,
        description:
          'A restricted key (`rk_` secret) holding these grants (`<resource>:read` or `<resource>:write`; write includes read; resources not named: none). ' +
          'Omitted: a full secret key (`sk_`). A member can give no more than their own role may do.',
      }),
    ),
    environment: IgnoredEnvironment,
  },
  { title: 'CreateApiKey' },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const RollApiKeyBody = Obj(
  {
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_HOURS,
        description: `How long the old secret keeps working, in hours (0 to ${MAX_OVERLAP_HOURS}, default ${DEFAULT_OVERLAP_HOURS}); 0 ends it at once.`,
      }),
    ),
    environment: IgnoredEnvironment,
  },
  { title: 'RollApiKey' },
);
export type RollApiKeyBody = Static<typeof RollApiKeyBody>;

export { EmptyBody };

export const API_KEY_STATUSES = ['active', 'expiring', 'expired', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

const keyProperties = {
  object: Type.Literal('api_key'),
  id: Type.String({ description: 'key_...' }),
  environment: EnvironmentName,
  name: Nullable(Type.String({ description: 'The name given when the key was created; null when it was given none.' })),
  public_key: Type.String({ description: 'pk_test_... / pk_live_...: the username of HTTP Basic auth.' }),
  restricted: Type.Boolean({ description: 'A restricted key (`rk_` secret) holds only its `permissions`.' }),
  permissions: Nullable(Type.Array(Type.String(), { description: "A restricted key's grants, e.g. `payout_intents:read`; null for a full key." })),
  status: Type.Union(
    API_KEY_STATUSES.map((s) => Type.Literal(s)),
    {
      description: '`active`; `expiring`: rolled, works until `expires_at`; `expired`: rolled and past its overlap; `revoked`.',
    },
  ),
  created_at: Instant,
  last_used_at: Nullable(Type.String({ format: 'date-time', description: 'When it last authenticated a request, to the minute; null if never.' })),
  expires_at: Nullable(Type.String({ format: 'date-time', description: 'A rolled key: the end of its overlap (401 from then on).' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
};

export const ApiKeySchema = Type.Object(keyProperties, { $id: 'ApiKey', additionalProperties: false });
export type ApiKeyWire = Static<typeof ApiKeySchema> & { secret_key?: string };

/** The create and roll answers (and their replays): the key with its secret, shown this once. */
export const ApiKeyWithSecretSchema = Type.Object(
  {
    ...keyProperties,
    secret_key: Type.String({
      pattern: '^(sk|rk)_(test|live)_',
      description:
        'sk_... (full) or rk_... (restricted): the password of HTTP Basic auth. Returned by the create and roll calls only; only its digest is stored.',
    }),
  },
  { $id: 'ApiKeyWithSecret', additionalProperties: false },
);

export const ApiKeyListSchema = Type.Object(
  {
    data: Type.Array(Type.Ref('ApiKey')),
    has_more: Type.Literal(false),
    next_cursor: Type.Null(),
  },
  { description: 'Every key of this merchant and environment (revoked and expired ones included), newest first.' },
);

const KEY_CAPABILITY = 'api_keys' as const;
const forbiddenKeys = failure(
  'permission_denied: needs an unrestricted key or a member whose role may manage keys (api_keys); a member asking for, rolling or revoking a key that may do more than their role names the missing permission.',
);

export const API_KEY_ROUTES = {
  list: {
    operationId: 'listApiKeys',
    permission: KEY_CAPABILITY,
    summary: 'The API keys of this merchant and environment, with when each was last used; never a secret.',
    responses: { 200: ApiKeyListSchema, ...readFailures, 403: forbiddenKeys },
  },
  create: {
    operationId: 'createApiKey',
    permission: KEY_CAPABILITY,
    summary: "Create a key in the caller's environment; the answer carries its `secret_key`, shown this once.",
    description: 'With `permissions`, a restricted key (`rk_`); without, a full secret key (`sk_`).',
    responses: { 201: answer('The new key with its secret.', 'ApiKeyWithSecret'), ...writeFailures, 403: forbiddenKeys },
  },
  roll: {
    operationId: 'rollApiKey',
    permission: KEY_CAPABILITY,
    summary: 'Replace a key: a new key pair with the same permissions, which works at once; the old one keeps working for `overlap_hours`.',
    description:
      `The answer is the new key with its \`secret_key\`, shown this once. The old key is \`expiring\` until its \`expires_at\` (0 to ${MAX_OVERLAP_HOURS} ` +
      `hours, default ${DEFAULT_OVERLAP_HOURS}), then every request with it is 401 and its open subscriptions close. A key already rolled or revoked is 422 invalid_state.`,
    responses: {
      201: answer('The new key with its secret.', 'ApiKeyWithSecret'),
      ...writeFailures,
      403: forbiddenKeys,
      422: failure('invalid_state: the key is already rolled or revoked.'),
    },
  },
  revoke: {
    operationId: 'revokeApiKey',
    permission: KEY_CAPABILITY,
    summary: 'Revoke a key at once: every request with it is 401 from now on, and its open subscriptions close.',
    description: 'Revoking a revoked key answers it unchanged.',
    responses: { 200: answer('The revoked key.', 'ApiKey'), ...writeFailures, 403: forbiddenKeys },
  },
} satisfies Record<string, RouteDoc>;
