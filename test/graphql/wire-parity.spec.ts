/**
 * Each wire record is shown by both surfaces: REST answers with the record its TypeBox
 * schema describes (the modules' `models`, the OpenAPI document's components), and GraphQL
 * reads the same record through a type-graphql object type. Both must list the same fields:
 * a GraphQL field name is the camelCase of the REST name (`merchant_reference` ->
 * `merchantReference`). Inline objects, `$ref`s and `oneOf` branches are followed, so the
 * nested types (PayoutRecipient, QrCodeDetails, PayerRequirements, ...) are compared too.
 *
 * Every deliberate difference is named below with its reason; an entry that no longer
 * matches a field fails the last test, so the lists stay true.
 */
import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import type { TSchema } from '@sinclair/typebox';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { MODULES } from '../../src/modules';

type JsonSchema = TSchema & {
  $id?: string;
  $ref?: string;
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** The REST records that GraphQL shows under another type name. */
const GRAPHQL_TYPE_OF: Record<string, string> = {
  // One GraphQL type serves the reads and the create/rotate answers; its `secret` is null on reads.
  WebhookEndpointWithSecret: 'WebhookEndpoint',
  ApiKeyWithSecret: 'ApiKey',
};

/** REST fields whose GraphQL name is not their camelCase, per REST record (or `Record.path` of an inline object). */
const RENAMED: Record<string, Record<string, { graphql: string; why: string }>> = {
  PaymentIntent: {
    payment_link: { graphql: 'paymentLinkId', why: 'the id; the GraphQL field paymentLink resolves the record' },
  },
  Refund: {
    payment_intent: { graphql: 'paymentIntentId', why: 'the id; the GraphQL field paymentIntent resolves the record' },
  },
  WebhookAttempt: {
    webhook_endpoint: { graphql: 'webhookEndpointId', why: 'an id, named as one in GraphQL' },
    event: { graphql: 'eventId', why: 'an id, named as one in GraphQL' },
  },
  WebhookDelivery: {
    webhook_endpoint: { graphql: 'webhookEndpointId', why: 'an id, named as one in GraphQL' },
    event: { graphql: 'eventId', why: 'an id, named as one in GraphQL' },
  },
};

const BTX = 'its movements of the balance (REST: GET /v1/balance_transactions?source=)';

/** GraphQL fields with no REST field of the record, per REST record: resolved from elsewhere. */
const MONEY = 'a String amount as Money (docs/graphql.md, Money): GraphQL-only, beside the contract field';
const ENUM = 'a contract String as its GraphQL enum (docs/graphql.md, Enums): GraphQL-only, beside the contract field';
const READ_BACK = 'accepted by the create and read back over GraphQL only (REST leaves the payer-facing fields out of the record)';
const NEXT_STEP = 'next_action as a union, one type per kind (NextStep)';
const GRAPHQL_ONLY: Record<string, Record<string, string>> = {
  PaymentIntent: {
    refunds: "the payment intent's refunds, a connection (REST: GET /v1/refunds?payment_intent=)",
    paymentLink: 'the payment link the payer started from, resolved from payment_link',
    amountMoney: MONEY,
    amountRefundedMoney: MONEY,
    balanceTransactions: BTX,
    customer: READ_BACK,
    metadata: READ_BACK,
    externalReference: READ_BACK,
    returnUrl: READ_BACK,
    nextStep: NEXT_STEP,
    failureCodeEnum: ENUM,
    paymentMethodEnum: ENUM,
  },
  PaymentLink: { allowedMethodsEnum: ENUM, amountMoney: MONEY, customerChoosesMinimumMoney: MONEY, customerChoosesMaximumMoney: MONEY },
  'PayoutBatch.totals': { amountMoney: MONEY },
  'PaymentLink.customer_chooses': { minimumMoney: MONEY, maximumMoney: MONEY },
  BalanceTransaction: { amountMoney: MONEY, feeMoney: MONEY, netMoney: MONEY },
  PaymentMethodOption: {
    id: 'derived from method and bank (pmo_promptpay) so that client caches can key it',
    paymentMethodEnum: ENUM,
    hint: "the catalogue's line a payer's page shows under the name, for the dashboard's payment link preview (REST discovery keeps the contract's fields)",
    minAmountMoney: MONEY,
    maxAmountMoney: MONEY,
  },
  PaymentMethodSetting: { paymentMethodEnum: ENUM, id: 'derived from the method (pms_promptpay) so that client caches can key it' },
  Event: { typeEnum: ENUM, resource: 'the record the event is about, typed and read now (union EventResource; REST: data.object is the record then)' },
  PayoutIntent: { amountMoney: MONEY, balanceTransactions: BTX, failureCodeEnum: ENUM },
  PayoutBatch: { items: "the batch's payout intents, a connection (REST: GET /v1/payout_batches/:id/items)" },
  TopupIntent: { amountMoney: MONEY, nextStep: NEXT_STEP, failureCodeEnum: ENUM },
  PaymentReceipt: { amountMoney: MONEY, paymentMethodEnum: ENUM },
  'NextAction.display_bank_transfer_instructions': { amountMoney: MONEY },
  ApprovalPolicy: { minAmountMoney: MONEY },
  Balance: {
    id: 'derived from environment and currency (bal_test_THB) so that Node and client caches can key it; REST balances are keyed by currency',
    availableMoney: MONEY,
    pendingMoney: MONEY,
    reservedMoney: MONEY,
  },
  Refund: { paymentIntent: 'the refunded payment intent, resolved from payment_intent', amountMoney: MONEY, balanceTransactions: BTX, failureCodeEnum: ENUM },
  WebhookEndpoint: {
    secret: 'one GraphQL type serves the reads (no secret: null) and the create/rotate answers (WebhookEndpointWithSecret)',
  },
  ApiKey: {
    secretKey: 'one GraphQL type serves the reads (no secret: null) and the create/roll answers (ApiKeyWithSecret)',
  },
};

/**
 * Every record's `object` tag (`object: "payout_intent"`): GraphQL names the type itself
 * (`__typename`). Only a constant `object` is the tag; Event's `data.object` is a field.
 */
const isTypeTag = (name: string, schema: JsonSchema): boolean => name === 'object' && schema.const !== undefined;

/** GraphQL object types that no REST record stands for. */
const GRAPHQL_ONLY_TYPES: Record<string, string> = {
  Query: 'root',
  Mutation: 'root',
  Subscription: 'root',
  Viewer: 'the calling API key (REST has no such route)',
  Merchant: 'the calling merchant (REST has no such route)',
  PageInfo: 'Relay paging (REST pages are { data, has_more, next_cursor })',
  // The team and the signed-in member: managed from the dashboard over GraphQL only.
  Me: 'the signed-in member (the dashboard; REST has no such route)',
  MerchantMembership: 'a merchant the signed-in member belongs to',
  TeamMember: 'a member of the team (GraphQL only)',
  SignInSession: 'a sign-in session of the member',
  Invitation: 'the answer of inviteMember',
  TotpEnrolment: 'the answer of enrolTotp',
  TotpConfirmation: 'the answer of confirmTotp',
  LivePaymentMethod: "the dashboard's Settings view of which methods live mode takes (provider accounts are the operator's CLI)",
  Money: 'how GraphQL shows an amount beside its contract String (docs/graphql.md)',
  PaymentCustomer: 'PaymentIntent.customer, read back from the create (REST does not return it)',
  RedirectToUrlAction: 'a NextStep member: next_action of type redirect_to_url',
  DisplayQrCodeAction: 'a NextStep member: next_action of type display_qr_code',
  DisplayBankTransferInstructionsAction: 'a NextStep member: next_action of type display_bank_transfer_instructions',
  PaymentIntentUpdate: 'a message of the paymentIntent(id:) subscription',
  PayoutIntentUpdate: 'a message of the payoutIntent(id:) subscription',
  TopupIntentUpdate: 'a message of the topupIntent(id:) subscription',
  RefundUpdate: 'a message of the refund(id:) subscription',
  PayoutBatchUpdate: 'a message of the payoutBatch(id:) subscription',
  PaymentLinkUpdate: 'a message of the paymentLink(id:) subscription',
  ReportRunUpdate: 'a message of the reportRun(id:) subscription',
  ErrorCodeInfo: 'the error codes of docs/contract.md, listed by the errorCodes query',
  FeeSchedule: 'the fee schedule the operator set with the CLI (the feeSchedule query; REST has no such route)',
  FeeRate: "one payment method's fee in FeeSchedule",
  Overview: "the dashboard's first page: the period's figures per currency, summed from balance transactions (the overview query; REST has no such route)",
  OverviewCurrency: "one currency's figures in Overview",
  OverviewDay: "one UTC day of a currency's figures in Overview",
};
const isConnectionType = (name: string): boolean => /(Connection|Edge)$/.test(name);

const camel = (snake: string): string => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const RECORDS = new Map<string, JsonSchema>();
/** Published request bodies (the payout create body, which batch items reference): inputs, not records. */
const REQUEST_BODIES = new Set(['CreatePayoutIntent']);
for (const module of MODULES) for (const model of module.models ?? []) if (!REQUEST_BODIES.has(String(model.$id))) RECORDS.set(String(model.$id), model);

const GRAPHQL = buildGraphQLSchema();

/** The object schema(s) a property stands for: `$ref` resolved, nullable and list wrappers removed, `oneOf` branches kept. */
function objectsOf(schema: JsonSchema): JsonSchema[] {
  if (schema.$ref) {
    const target = RECORDS.get(schema.$ref);
    if (!target) throw new Error(`$ref to ${schema.$ref}, which no module publishes`);
    return objectsOf(target);
  }
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return branches.flatMap(objectsOf);
  if (schema.type === 'array' && schema.items) return objectsOf(schema.items);
  return schema.type === 'object' && schema.properties ? [schema] : [];
}

interface Comparison {
  /** REST record name, or `Record.path` for an inline object. */
  rest: string;
  graphql: string;
  /** GraphQL field names, sorted. */
  graphqlFields: string[];
  /** What the REST schema says the GraphQL fields are, sorted. */
  expected: string[];
}

/** Compares a REST object schema with a GraphQL type, then each nested object field with its GraphQL type. */
function compare(rest: string, schema: JsonSchema, type: GraphQLObjectType, out: Comparison[], seen: Set<string>): void {
  const key = `${rest} -> ${type.name}`;
  if (seen.has(key)) return;
  seen.add(key);
  const properties = new Map<string, JsonSchema>();
  for (const object of objectsOf(schema))
    for (const [name, prop] of Object.entries(object.properties ?? {})) if (!properties.has(name)) properties.set(name, prop);
  const gqlFields = type.getFields();
  const expected: string[] = [];
  for (const [name, prop] of properties) {
    if (isTypeTag(name, prop)) continue;
    const gqlName = RENAMED[rest]?.[name]?.graphql ?? camel(name);
    expected.push(gqlName);
    const field = gqlFields[gqlName];
    const named = field && getNamedType(field.type);
    if (!named || !isObjectType(named)) continue;
    // A nested object: a $ref'd record is compared under its own name, an inline one under its path.
    if (objectsOf(prop).length === 0) {
      expected.push(`${gqlName} is a GraphQL object type, but REST ${rest}.${name} is not an object`);
      continue;
    }
    const refName = [prop, ...(prop.anyOf ?? [])].find((s) => s.$ref)?.$ref;
    compare(refName ?? `${rest}.${name}`, refName ? RECORDS.get(refName)! : prop, named, out, seen);
  }
  expected.push(...Object.keys(GRAPHQL_ONLY[rest] ?? {}));
  out.push({ rest, graphql: type.name, graphqlFields: Object.keys(gqlFields).sort(), expected: [...new Set(expected)].sort() });
}

function comparisons(): Comparison[] {
  const out: Comparison[] = [];
  const seen = new Set<string>();
  for (const [name, schema] of RECORDS) {
    const type = GRAPHQL.getType(GRAPHQL_TYPE_OF[name] ?? name);
    if (!isObjectType(type)) throw new Error(`REST record ${name} has no GraphQL object type ${GRAPHQL_TYPE_OF[name] ?? name}`);
    compare(name, schema, type, out, seen);
  }
  return out;
}

const ALL = comparisons();

test('the modules publish the wire records this spec expects to compare', () => {
  expect([...RECORDS.keys()].sort()).toEqual([
    'ApiKey',
    'ApiKeyWithSecret',
    'ApprovalPolicy',
    'AuditEntry',
    'Balance',
    'BalanceTransaction',
    'DeletedWebhookEndpoint',
    'Event',
    'NextAction',
    'PaymentIntent',
    'PaymentLink',
    'PaymentMethodOption',
    'PaymentMethodSetting',
    'PaymentReceipt',
    'PayoutBatch',
    'PayoutIntent',
    'Refund',
    'ReportRun',
    'TopupIntent',
    'WebhookAttempt',
    'WebhookDelivery',
    'WebhookEndpoint',
    'WebhookEndpointWithSecret',
  ]);
});

test.each(ALL.map((c) => [`${c.rest} -> ${c.graphql}`, c] as const))('%s: the GraphQL type lists the REST fields, camelCased', (_, c) => {
  expect(c.graphqlFields).toEqual(c.expected);
});

test('the nested objects are compared too (inline objects, $refs and oneOf branches)', () => {
  expect(ALL.map((c) => `${c.rest} -> ${c.graphql}`)).toEqual(
    expect.arrayContaining([
      'PayoutIntent.recipient -> PayoutRecipient',
      'NextAction.display_qr_code -> QrCodeDetails',
      'NextAction.display_bank_transfer_instructions -> BankTransferInstructions',
      'PaymentMethodOption.options -> PaymentMethodOptionOptions',
      'PaymentMethodOption.options.payer -> PayerRequirements',
      'PaymentMethodOption.options.payer.customer_name -> PayerRequirement',
      'Event.data -> EventData',
      'PaymentReceipt -> PaymentReceipt',
    ]),
  );
});

test('every GraphQL object type is a view of a REST record, or is named here as GraphQL-only', () => {
  const compared = new Set(ALL.map((c) => c.graphql));
  const unexplained = Object.values(GRAPHQL.getTypeMap())
    .filter((t) => isObjectType(t) && !t.name.startsWith('__'))
    .map((t) => t.name)
    .filter((name) => !compared.has(name) && !(name in GRAPHQL_ONLY_TYPES) && !isConnectionType(name));
  expect(unexplained).toEqual([]);
  for (const name of Object.keys(GRAPHQL_ONLY_TYPES)) expect(compared.has(name)).toBe(false);
});

test('every named exception matches a field, so none is stale', () => {
  for (const [rest, renames] of Object.entries(RENAMED)) {
    const record = RECORDS.get(rest);
    const type = GRAPHQL.getType(GRAPHQL_TYPE_OF[rest] ?? rest);
    expect(record && isObjectType(type)).toBeTruthy();
    for (const [name, { graphql }] of Object.entries(renames)) {
      expect(Object.keys(record!.properties ?? {})).toContain(name);
      expect(Object.keys((type as GraphQLObjectType).getFields())).toContain(graphql);
      expect(graphql).not.toBe(camel(name));
    }
  }
  for (const [rest, fields] of Object.entries(GRAPHQL_ONLY)) {
    // A record, or `Record.path` of an inline object (compared under that name).
    const comparison = ALL.find((c) => c.rest === rest);
    expect(comparison).toBeDefined();
    const type = GRAPHQL.getType(comparison!.graphql);
    expect(isObjectType(type)).toBe(true);
    const [record, ...path] = rest.split('.');
    let schema: JsonSchema | undefined = RECORDS.get(record);
    for (const step of path) schema = schema && objectsOf(schema).find((o) => o.properties?.[step])?.properties?.[step];
    const properties = Object.assign({}, ...(schema ? objectsOf(schema) : []).map((o) => o.properties ?? {})) as Record<string, JsonSchema>;
    const restFields = Object.keys(properties).map((name) => RENAMED[rest]?.[name]?.graphql ?? camel(name));
    expect(restFields.length).toBeGreaterThan(0);
    for (const name of Object.keys(fields)) {
      expect(Object.keys((type as GraphQLObjectType).getFields())).toContain(name);
      expect(restFields).not.toContain(name);
    }
  }
  for (const [rest, typeName] of Object.entries(GRAPHQL_TYPE_OF)) {
    expect(RECORDS.has(rest)).toBe(true);
    expect(RECORDS.has(typeName)).toBe(true);
  }
});
