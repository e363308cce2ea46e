/**
 * Partial data (docs/graphql.md, "Nullability"): a root field the caller may not read, or that
 * fails, is null with one error at its path, and every other root field of the document is
 * still answered. One document selects every Query field; it is sent with a key holding one
 * read permission at a time.
 */
import { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLInputType } from 'graphql';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { rootRequirements } from '../../src/graphql/access';
import { isPermission } from '../../src/domain/access';
import { RESOURCES } from '../../src/domain/permissions';

let srv: TestServer;
let full: Client;
beforeAll(async () => {
  srv = await startServer();
  full = await srv.merchant();
  expect((await full.post('/v1/payout_intents', payoutBody())).status).toBe(201);
});
afterAll(async () => {
  await srv.close();
});

/** A literal the argument's type accepts (ids are unknown ones: those lookups fail with not_found). */
function literal(type: GraphQLInputType): string {
  if (isNonNullType(type)) return literal(type.ofType);
  if (isListType(type)) return `[${literal(type.ofType)}]`;
  if (isEnumType(type)) return type.getValues()[0].name;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter((f) => isNonNullType(f.type));
    return `{ ${fields.map((f) => `${f.name}: ${literal(f.type)}`).join(', ')} }`;
  }
  if (isScalarType(type) && (type.name === 'Int' || type.name === 'Float')) return '1';
  return '"x_unknown"';
}

/** Root fields whose null is an answer (the merchant has no fee schedule), not a failure. */
const NULL_WITHOUT_ERROR = new Set(['feeSchedule', 'me']);

const schema = buildGraphQLSchema();
const queryFields = rootRequirements(schema).filter((f) => f.type === 'Query');

/** Every Query field once, with its required arguments, selecting `__typename`. */
function everyQueryField(): string {
  const fields = schema.getQueryType()!.getFields();
  const parts = queryFields.map(({ field }) => {
    const def = fields[field];
    const required = def.args.filter((a) => isNonNullType(a.type));
    const args = required.length ? `(${required.map((a) => `${a.name}: ${literal(a.type)}`).join(', ')})` : '';
    const named = getNamedType(def.type);
    return `${field}${args}${isScalarType(named) || isEnumType(named) ? '' : ' { __typename }'}`;
  });
  return `query EveryField { ${parts.join(' ')} }`;
}

test('every root field a key may not read is null with permission_denied at its path; the rest is answered', async () => {
  const document = everyQueryField();
  expect(queryFields.length).toBeGreaterThan(30);
  const reads = RESOURCES.map((r) => `${r}:read` as const);
  for (const permission of reads) {
    const client = await srv.keyFor(full.merchantId, 'test', [permission]);
    const res = await client.gql(document);
    expect({ permission, status: res.status, data: typeof res.body.data }).toEqual({ permission, status: 200, data: 'object' });
    const data = res.body.data as Record<string, unknown>;
    const errors = res.body.errors ?? [];
    const errorAt = (field: string) => errors.filter((e: any) => e.path?.[0] === field);
    let answered = 0;
    for (const { field, needed } of queryFields) {
      expect(field in data).toBe(true);
      if (isPermission(needed) && needed !== permission) {
        // Denied: null, with its own permission_denied error naming what it needs.
        expect({ permission, field, value: data[field], codes: errorAt(field).map((e: any) => e.extensions?.code) }).toEqual({
          permission,
          field,
          value: null,
          codes: ['permission_denied'],
        });
        expect(errorAt(field)[0].path).toEqual([field]);
        expect(errorAt(field)[0].message).toContain(needed);
      } else if (needed === permission) {
        // Allowed: never denied; an unknown id is null with its own not_found, anything else answers.
        const codes = errorAt(field).map((e: any) => e.extensions?.code);
        expect({ permission, field, codes }).toEqual({ permission, field, codes: expect.not.arrayContaining(['permission_denied']) });
        if (data[field] !== null) answered++;
        else if (!NULL_WITHOUT_ERROR.has(field)) expect({ permission, field, codes }).toEqual({ permission, field, codes: [expect.any(String)] });
      }
    }
    // Every error belongs to one root field of the document, and carries a code.
    for (const e of errors) {
      expect(queryFields.map((f) => f.field)).toContain(e.path?.[0]);
      expect(typeof e.extensions?.code).toBe('string');
    }
    // The fields that need nothing but a key are answered whatever the key holds.
    expect(data.viewer).toEqual({ __typename: 'Viewer' });
    expect(data.errorCodes).toEqual(expect.any(Array));
    if (['payout_intents:read', 'balances:read', 'events:read', 'payment_intents:read'].includes(permission)) expect(answered).toBeGreaterThan(0);
  }
});

test('a payout_intents-only key asking for payouts and balances gets its payouts, and balances null with its error', async () => {
  const client = await srv.keyFor(full.merchantId, 'test', ['payout_intents:read']);
  const res = await client.gql('{ payoutIntents(first: 5) { nodes { id amountMoney { minorUnits currency } } } balances { currency available } }');
  expect(res.status).toBe(200);
  expect(res.body.data!.payoutIntents.nodes).toEqual([{ id: expect.stringMatching(/^po_/), amountMoney: { minorUnits: expect.any(String), currency: 'THB' } }]);
  expect(res.body.data!.balances).toBeNull();
  expect(res.body.errors).toEqual([
    expect.objectContaining({
      path: ['balances'],
      extensions: expect.objectContaining({ code: 'permission_denied' }),
      message: expect.stringContaining('balances:read'),
    }),
  ]);
});
