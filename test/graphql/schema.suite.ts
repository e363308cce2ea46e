/**
 * The committed GraphQL SDL (schema.graphql) must be exactly what the resolvers build,
 * and the schema must keep the conventions of docs/contract.md "GraphQL surface".
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import {
  buildSchema,
  GraphQLEnumType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isObjectType,
} from 'graphql';
import { buildGraphQLSchema, printGraphQLSchema } from '../../src/graphql/schema';

const ROOT = path.resolve(__dirname, '../../..');
const SDL_FILE = path.join(ROOT, 'schema.graphql');
const REGENERATE = 'npm run --silent schema:emit > schema.graphql';

function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return `line ${i + 1}: committed ${JSON.stringify(la[i] ?? '<end of file>')}, resolvers ${JSON.stringify(lb[i] ?? '<end of file>')}`;
  }
  return 'no line differs (whitespace at the end?)';
}

function userTypes(schema: GraphQLSchema): GraphQLNamedType[] {
  return Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
}

test('schema.graphql is the schema the resolvers build', () => {
  if (!fs.existsSync(SDL_FILE)) {
    throw new Error(`schema.graphql is missing at ${SDL_FILE}. Generate it with:\n  ${REGENERATE}`);
  }
  const committed = fs.readFileSync(SDL_FILE, 'utf8');
  const current = printGraphQLSchema();
  if (committed !== current) {
    throw new Error(
      `schema.graphql is out of date with the GraphQL resolvers (${firstDifference(committed, current)}).\n` +
        `Regenerate it from the repository root with:\n  ${REGENERATE}\nthen review and commit the diff.`,
    );
  }
  // And it is valid SDL on its own.
  expect(() => buildSchema(committed)).not.toThrow();
});

test('`cli schema emit` prints exactly printGraphQLSchema() and nothing else', async () => {
  const cli = path.join(ROOT, 'dist/src/cli/main.js');
  const { stdout, code } = await new Promise<{ stdout: string; code: number }>((resolve) => {
    execFile(
      process.execPath,
      [cli, 'schema', 'emit'],
      { env: { ...process.env, LOG_LEVEL: 'silent' }, timeout: 30000, maxBuffer: 16 * 1024 * 1024 },
      (err, out) => resolve({ stdout: out, code: err ? 1 : 0 }),
    );
  });
  expect(code).toBe(0);
  expect(stdout).toBe(printGraphQLSchema());
});

test('the npm script that regenerates it is the one the failure message names', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.scripts['schema:emit']).toMatch(/cli\/main\.js schema emit$/);
});

describe('conventions', () => {
  const schema = buildGraphQLSchema();

  test('payout operations have the contract names', () => {
    const query = schema.getQueryType()!.getFields();
    const mutation = schema.getMutationType()!.getFields();
    for (const name of ['viewer', 'payoutIntent', 'payoutIntents']) expect(query).toHaveProperty(name);
    for (const name of ['createPayoutIntent', 'approvePayoutIntent', 'cancelPayoutIntent']) expect(mutation).toHaveProperty(name);
    expect(mutation.cancelPayoutIntent.args.map((a) => a.name).sort()).toEqual(['id', 'reason']);
    expect(query.payoutIntent.args.map((a) => a.name)).toEqual(['id']);
  });

  test('every enum value is UPPER_CASE', () => {
    const bad: string[] = [];
    for (const t of userTypes(schema)) {
      if (!(t instanceof GraphQLEnumType)) continue;
      for (const v of t.getValues()) if (!/^[A-Z][A-Z0-9_]*$/.test(v.name)) bad.push(`${t.name}.${v.name}`);
    }
    expect(bad).toEqual([]);
  });

  test('every field is camelCase', () => {
    const bad: string[] = [];
    for (const t of userTypes(schema)) {
      if (!isObjectType(t) && !isInputObjectType(t)) continue;
      for (const f of Object.values(t.getFields())) if (!/^[a-z][A-Za-z0-9]*$/.test(f.name)) bad.push(`${t.name}.${f.name}`);
    }
    expect(bad).toEqual([]);
  });

  test('amounts are strings', () => {
    const bad: string[] = [];
    for (const t of userTypes(schema)) {
      if (!isObjectType(t) && !isInputObjectType(t)) continue;
      for (const f of Object.values(t.getFields())) {
        if (/^(amount|available|pending|reserved)$|Amount$/.test(f.name) && getNamedType(f.type as GraphQLOutputType).name !== 'String')
          bad.push(`${t.name}.${f.name}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('every *Connection is a Relay connection and every field returning one takes first/after', () => {
    const connections = userTypes(schema).filter((t): t is GraphQLObjectType => isObjectType(t) && t.name.endsWith('Connection'));
    expect(connections.map((c) => c.name)).toContain('PayoutIntentConnection');
    for (const c of connections) {
      const fields = c.getFields();
      expect(Object.keys(fields)).toEqual(expect.arrayContaining(['edges', 'nodes', 'pageInfo']));
      const edge = getNamedType(fields.edges.type) as GraphQLObjectType;
      expect(Object.keys(edge.getFields()).sort()).toEqual(['cursor', 'node']);
      expect(getNamedType(fields.pageInfo.type).name).toBe('PageInfo');
    }
    const pageInfo = schema.getType('PageInfo') as GraphQLObjectType;
    expect(Object.keys(pageInfo.getFields())).toEqual(expect.arrayContaining(['hasNextPage', 'endCursor']));
    const bad: string[] = [];
    for (const t of [schema.getQueryType(), ...userTypes(schema).filter(isObjectType)]) {
      for (const f of Object.values(t!.getFields())) {
        if (!getNamedType(f.type).name.endsWith('Connection')) continue;
        const args = Object.fromEntries(f.args.map((a) => [a.name, getNullableType(a.type).toString()]));
        if (args.first !== 'Int' || args.after !== 'String') bad.push(`${t!.name}.${f.name}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
