/**
 * Schema evolution (docs/graphql.md, "Deprecation and breaking changes"): the schema the
 * resolvers build is compared with `schema.release.graphql`, the last released schema, by
 * @graphql-inspector/core. A breaking change fails unless it removes what the release had
 * already deprecated, or is accepted below with its reason. `npm run schema:check` runs this file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import { ChangeType, CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildGraphQLSchema } from '../../src/graphql/schema';

const RELEASE = path.resolve(__dirname, '../../../schema.release.graphql');

/**
 * Breaking changes made on purpose since the release, by path, with why. Emptied when
 * schema.release.graphql is replaced by the schema of the next release.
 */
const ACCEPTED: Record<string, string> = {
  'PaymentIntent.refunds': 'nullable: it needs refunds:read, so a payment_intents-only key gets null there instead of losing the payment intent',
  'Refund.paymentIntent': 'nullable: it needs payment_intents:read, so a refunds-only key gets null there instead of losing the refund',
  'Viewer.merchant': 'nullable: a lookup of another record, which can fail on its own (docs/graphql.md, Nullability)',
  ...Object.fromEntries(
    [
      'apiKeys',
      'approvalPolicies',
      'auditLog',
      'balanceTransactions',
      'balances',
      'events',
      'nodes',
      'paymentIntents',
      'paymentLinks',
      'paymentMethodOptions',
      'paymentMethodSettings',
      'payoutBatches',
      'payoutIntents',
      'refunds',
      'reportRuns',
      'sessions',
      'teamMembers',
      'topupIntents',
      'webhookAttempts',
      'webhookEndpoints',
    ].map((field) => [
      `Query.${field}`,
      'nullable: a root field a key may be denied (or that fails) is null with its own error, so the other root fields of the document are still answered (partial data)',
    ]),
  ),
};

/** Whether the release had deprecated what `change` removes (a field, input field or enum value). */
function removesDeprecated(release: GraphQLSchema, change: Change): boolean {
  const removal = [ChangeType.FieldRemoved, ChangeType.InputFieldRemoved, ChangeType.EnumValueRemoved] as string[];
  if (!removal.includes(change.type) || !change.path) return false;
  const [typeName, member] = change.path.split('.');
  const type = release.getType(typeName);
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) return Boolean(type.getFields()[member]?.deprecationReason);
  if (isEnumType(type)) return Boolean(type.getValue(member)?.deprecationReason);
  return false;
}

/** The breaking changes from `release` to `current` that the policy does not allow. */
export async function refusedChanges(release: GraphQLSchema, current: GraphQLSchema, accepted: Record<string, string> = {}): Promise<string[]> {
  const changes = await diff(release, current);
  return changes
    .filter((c) => c.criticality.level === CriticalityLevel.Breaking)
    .filter((c) => !removesDeprecated(release, c) && !(c.path && c.path in accepted))
    .map((c) => `${c.type} ${c.path ?? ''}: ${c.message}`);
}

test('the schema makes no breaking change to the last release other than removing what it deprecated', async () => {
  const release = buildSchema(fs.readFileSync(RELEASE, 'utf8'));
  expect(await refusedChanges(release, buildGraphQLSchema(), ACCEPTED)).toEqual([]);
});

test('every accepted change is one the diff still finds (the list stays current)', async () => {
  const release = buildSchema(fs.readFileSync(RELEASE, 'utf8'));
  const paths = new Set((await diff(release, buildGraphQLSchema())).map((c) => c.path));
  expect(Object.keys(ACCEPTED).filter((p) => !paths.has(p))).toEqual([]);
});

test('the check refuses a removed or retyped field and an argument made required, and allows removing a deprecated one', async () => {
  const release = buildSchema(`
    type Query {
      kept(id: ID): String
      old: String @deprecated(reason: "Use kept.")
      gone: String
      amount: String!
    }
    enum Status { OPEN CLOSED @deprecated(reason: "Not used.") SHUT }`);
  const current = buildSchema(`
    type Query { kept(id: ID!): String amount: Int! status: Status }
    enum Status { OPEN }`);
  const refused = await refusedChanges(release, current);
  expect(refused.map((r) => r.split(':')[0]).sort()).toEqual(
    ['ENUM_VALUE_REMOVED Status.SHUT', 'FIELD_ARGUMENT_TYPE_CHANGED Query.kept.id', 'FIELD_REMOVED Query.gone', 'FIELD_TYPE_CHANGED Query.amount'].sort(),
  );
  // Deprecated first, removed later: allowed.
  expect(refused.some((r) => r.includes('Query.old') || r.includes('Status.CLOSED'))).toBe(false);
});
