/**
 * The query cost limit (docs/graphql.md, "Query cost"): sized so that the dashboard's own
 * documents pass at `first: 100`; every answer reports `extensions.cost`; an operation over the
 * limit is refused before it runs with `query_too_complex`; page sizes given in variables or
 * left to their default count as what they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'graphql';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { QUERY_COST, requestedCost } from '../../src/graphql/cost';

let srv: TestServer;
let merchant: Client;
beforeAll(async () => {
  srv = await startServer();
  merchant = await srv.merchant();
  for (let i = 0; i < 3; i++) expect((await merchant.post('/v1/payout_intents', payoutBody())).status).toBe(201);
});
afterAll(async () => {
  await srv.close();
});

const schema = buildGraphQLSchema();

/** Every `graphql(\`...\`)` document of the dashboard's sources. */
function dashboardDocuments(): { name: string; text: string }[] {
  const root = path.resolve(__dirname, '../../../dashboard/src');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'gql') walk(p);
      else if (/\.tsx?$/.test(entry.name)) files.push(p);
    }
  };
  walk(root);
  const docs = files.flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/graphql\(`([^`]*)`\)/g)].map((m) => m[1]));
  const fragments = docs.filter((d) => /^\s*fragment\s/.test(d));
  return docs
    .filter((d) => /^\s*query\s/.test(d))
    .map((d) => {
      const used = fragments.filter((f) => d.includes(`...${/fragment\s+(\w+)/.exec(f)![1]}`));
      return { name: /query\s+(\w+)/.exec(d)![1], text: [d, ...used].join('\n') };
    });
}

const PAYOUT_ROWS = `
  query Rows($n: Int) {
    payoutIntents(first: $n) {
      nodes {
        id status createdAt approvalsRequired
        amountMoney { minorUnits currency decimal }
        recipient { bankCode accountLast4 holderName }
        approvals { createdAt actor { type id } }
      }
      pageInfo { hasNextPage endCursor }
    }
    balances { currency availableMoney { decimal } reservedMoney { decimal } }
  }`;

test("the dashboard's own queries pass the limit with every page at first: 100", () => {
  const docs = dashboardDocuments();
  expect(docs.length).toBeGreaterThan(15);
  const costs = docs.map(({ name, text }) => ({ name, cost: requestedCost(schema, parse(text.replace(/first: \d+/g, 'first: 100'))) }));
  for (const c of costs) expect({ ...c, within: c.cost <= QUERY_COST.maxCost }).toEqual({ ...c, within: true });
  // At least one of them is a real list page: a limit that refused nothing would pass too.
  expect(Math.max(...costs.map((c) => c.cost))).toBeGreaterThan(300);
  process.stdout.write(`\ndashboard query costs at first: 100: ${costs.map((c) => `${c.name} ${c.cost}`).join(', ')} (limit ${QUERY_COST.maxCost})\n`);
});

test('a page of 100 realistic payout rows with balances is answered, with its cost in extensions.cost', async () => {
  const res = await merchant.gql(PAYOUT_ROWS, { n: 100 });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data!.payoutIntents.nodes).toHaveLength(3);
  const cost = res.body.extensions!.cost;
  expect(cost).toEqual({ requestedQueryCost: expect.any(Number), actualQueryCost: expect.any(Number), maximumQueryCost: QUERY_COST.maxCost });
  expect(cost.requestedQueryCost).toBe(requestedCost(schema, parse(PAYOUT_ROWS.replace('first: $n', 'first: 100'))));
  expect(cost.requestedQueryCost).toBeGreaterThan(100);
  // What came back: the connection, pageInfo, 3 rows of (row, Money, recipient), their approvals, and each balance with two Money.
  const approvals = res.body.data!.payoutIntents.nodes.reduce((n: number, p: any) => n + p.approvals.length * 2, 0);
  const balances = res.body.data!.balances.length * 3;
  expect(cost.actualQueryCost).toBe(2 + 3 * 3 + approvals + balances);
  expect(cost.actualQueryCost).toBeLessThan(cost.requestedQueryCost);
});

test('a page size in a variable, or left to its default, costs what it asks for', () => {
  const literal = requestedCost(schema, parse('{ payoutIntents(first: 100) { nodes { id amountMoney { decimal } } } }'));
  expect(requestedCost(schema, parse('query($n: Int) { payoutIntents(first: $n) { nodes { id amountMoney { decimal } } } }'), { n: 100 })).toBe(literal);
  expect(requestedCost(schema, parse('query($n: Int = 100) { payoutIntents(first: $n) { nodes { id amountMoney { decimal } } } }'))).toBe(literal);
  expect(requestedCost(schema, parse('{ payoutIntents { nodes { id amountMoney { decimal } } } }'))).toBe(
    requestedCost(schema, parse('{ payoutIntents(first: 25) { nodes { id amountMoney { decimal } } } }')),
  );
  expect(literal).toBe((1 + 1 + 1) * 100);
});

test('one parsed document is costed for the page sizes and the operation each request gives', () => {
  const document = parse(`
    query Rows($n: Int) { payoutIntents(first: $n) { nodes { id amountMoney { decimal } } } }
    query One { payoutIntents(first: 1) { nodes { id } } }`);
  expect(requestedCost(schema, document, { n: 100 }, 'Rows')).toBe(3 * 100);
  expect(requestedCost(schema, document, { n: 2 }, 'Rows')).toBe(3 * 2);
  expect(requestedCost(schema, document, { n: 100 }, 'Rows')).toBe(3 * 100);
  expect(requestedCost(schema, document, { n: 100 }, 'One')).toBe(2);
  expect(requestedCost(schema, document, { n: 100, other: 'ignored' }, 'Rows')).toBe(3 * 100);
});

test('an operation over the limit is refused before it runs: HTTP 400 query_too_complex with its cost', async () => {
  const nested = `query($n: Int) { payoutBatches(first: $n) { nodes { id items(first: 100) { nodes { id amountMoney { decimal } recipient { bankCode } } } } } }`;
  const res = await merchant.gql(nested, { n: 100 });
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toEqual([
    expect.objectContaining({ message: expect.stringContaining(`over the limit of ${QUERY_COST.maxCost}`), extensions: { code: 'query_too_complex' } }),
  ]);
  expect(res.body.errors![0].message).not.toMatch(/syntax/i);
  expect(res.body.extensions!.cost).toEqual({ requestedQueryCost: expect.any(Number), actualQueryCost: 0, maximumQueryCost: QUERY_COST.maxCost });
  expect(res.body.extensions!.cost.requestedQueryCost).toBeGreaterThan(QUERY_COST.maxCost);
  // The same document at a small page size runs.
  const small = await merchant.gql(nested, { n: 2 });
  expect(small.status).toBe(200);
  expect(small.body.errors).toBeUndefined();
});

test('query_too_complex is one of the listed error codes', async () => {
  const res = await merchant.gql('{ errorCodes { code status } }');
  expect(res.body.data!.errorCodes).toContainEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
});
