/**
 * In production the service publishes less about itself: no GraphQL introspection (the schema
 * is published as schema.graphql) and no dashboard source maps. Apollo leaves the process's
 * signals to main.ts there as everywhere.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';
import { loadFiles } from '../../src/http/dashboard';

describe('NODE_ENV=production', () => {
  let srv: TestServer;
  let c: Client;
  const signalHandlers = () => process.listenerCount('SIGTERM') + process.listenerCount('SIGINT');
  let handlersBefore: number;
  beforeAll(async () => {
    handlersBefore = signalHandlers();
    srv = await startServer({ scheduler: false, env: { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' } });
    c = await srv.merchant();
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('introspection is refused; ordinary queries and __typename still answer', async () => {
    for (const query of ['{ __schema { types { name } } }', '{ __type(name: "Query") { fields { name } } }']) {
      const res = await c.gql(query);
      expect([query, res.status, res.body.errors?.[0]?.extensions?.code]).toEqual([query, 400, 'validation_error']);
      expect(res.text).not.toContain('"fields"');
    }
    const ok = await c.gql('{ __typename viewer { environment } }');
    expect([ok.status, ok.body.data]).toEqual([200, { __typename: 'Query', viewer: { environment: 'TEST' } }]);
  });

  test('starting the server adds no SIGTERM or SIGINT handler: main.ts owns shutdown', () => {
    expect(signalHandlers()).toBe(handlersBefore);
  });
});

test('in development introspection answers', async () => {
  const srv = await startServer({ scheduler: false });
  try {
    const c = await srv.merchant();
    const res = await c.gql('{ __schema { queryType { name } } }');
    expect([res.status, res.body.data]).toEqual([200, { __schema: { queryType: { name: 'Query' } } }]);
  } finally {
    await srv.close();
  }
});

test('the dashboard files served in production leave out the source maps', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-'));
  for (const name of ['index.html', 'app.js', 'app.js.map', 'app.css', 'app.css.map']) fs.writeFileSync(path.join(dir, name), name);
  expect([...loadFiles(dir, false).keys()].sort()).toEqual(['app.css', 'app.js', 'index.html']);
  expect([...loadFiles(dir, true).keys()].sort()).toEqual(['app.css', 'app.css.map', 'app.js', 'app.js.map', 'index.html']);
  fs.rmSync(dir, { recursive: true });
});
