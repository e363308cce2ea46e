/**
 * Error messages speak of the caller's request only: no file paths, no environment variable
 * names, no build commands, no word said twice in a row. Every message site in the source
 * (`new ApiError(code, message)`, `ApiError.validation(param, message)`, the schemas'
 * `x-messages`, the CSV upload's `fileError`) is read with the TypeScript parser, and the
 * routes are driven with bad input so composed messages (a field's path before its rule) are
 * checked as clients see them.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { startServer, TestServer } from '../helpers/server';
import { payoutBody, type Client } from '../helpers/client';

const SRC = join(__dirname, '..', '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The text of a literal message: a template's placeholders become `<1>`, `<2>`, ... (never one word twice). */
function textOf(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s, i) => `<${i + 1}>${s.literal.text}`).join('');
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [a, b] = [textOf(node.left), textOf(node.right)];
    return a !== undefined && b !== undefined ? a + b : undefined;
  }
  if (ts.isParenthesizedExpression(node)) return textOf(node.expression);
  return undefined;
}

/** Every literal message in the source, with where it is. */
function sourceMessages(): { at: string; text: string }[] {
  const found: { at: string; text: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const add = (node: ts.Node | undefined) => {
      const text = node && textOf(node);
      if (text !== undefined) found.push({ at: `${file.slice(SRC.length + 1)}:${sf.getLineAndCharacterOfPosition(node!.getStart()).line + 1}`, text });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText() === 'ApiError') add(node.arguments?.[1]);
      if (ts.isCallExpression(node)) {
        const callee = node.expression.getText();
        if (callee === 'ApiError.validation') add(node.arguments[1]);
        if (callee === 'fileError') add(node.arguments[0]);
      }
      if (ts.isPropertyAssignment(node) && ts.isStringLiteral(node.name) && node.name.text === 'x-messages' && ts.isObjectLiteralExpression(node.initializer)) {
        for (const p of node.initializer.properties) if (ts.isPropertyAssignment(p)) add(p.initializer);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

/** What an error message must not contain, by name. */
function problemsOf(text: string): string[] {
  const problems: string[] = [];
  if (/\b(?:docs|src|test|dist|dashboard)\/|\b[\w-]+\.(?:md|ts|js|json|mjs)\b/.test(text)) problems.push('a file path');
  if (/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/.test(text)) problems.push('an environment variable name');
  if (/\bnpm (?:run|install)\b|\bnpx\b/.test(text)) problems.push('a build command');
  const doubled = /\b([A-Za-z][\w:.]*)\s+\1\b/i.exec(text);
  if (doubled) problems.push(`"${doubled[1]}" twice`);
  return problems;
}

test('no message site in the source names a file, an environment variable or a command, or doubles a word', () => {
  const messages = sourceMessages();
  expect(messages.length).toBeGreaterThan(100);
  const bad = messages.map((m) => ({ ...m, problems: problemsOf(m.text) })).filter((m) => m.problems.length > 0);
  expect(bad).toEqual([]);
});

test('the check itself finds each kind of leak', () => {
  expect(problemsOf('currency currency is not a supported currency')).toEqual(['"currency" twice']);
  expect(problemsOf('see docs/api.md')).toContain('a file path');
  expect(problemsOf('set SIMULATED_PROVIDERS_IN_LIVE')).toEqual(['an environment variable name']);
  expect(problemsOf('run `npm run build`')).toEqual(['a build command']);
  expect(problemsOf('needs payout_intents:write (payout_intents:write)')).toEqual([]);
  expect(problemsOf('The amount must be at least 1.')).toEqual([]);
});

describe('messages as the routes answer them', () => {
  let srv: TestServer;
  let c: Client;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false });
    c = await srv.merchant();
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('bad input across the routes', async () => {
    const restricted = await srv.keyFor(c.merchantId, 'test', ['balances:read']);
    const answers = [
      await c.post('/v1/payout_intents', payoutBody({ currency: 'ZZZ' })),
      await c.post('/v1/payout_intents', payoutBody({ currency: 'XXXXXX' })),
      await c.post('/v1/payout_intents', payoutBody({ country: 'ZZ' })),
      await c.post('/v1/payout_intents', payoutBody({ amount: '-1' })),
      await c.post('/v1/payout_intents', { ...payoutBody(), recipient: { type: 'bank_account' } }),
      await c.post('/v1/payment_intents', { amount: '100', currency: 'QQQ', country: 'TH', merchant_reference: 'm', customer: {} }),
      await c.post('/v1/payout_batches', { items: [payoutBody({ currency: 'ZZZ' })] }),
      await c.post('/v1/report_runs', { report_type: 'nope', interval_start: '2026-01-01T00:00:00Z', interval_end: '2026-01-02T00:00:00Z' }),
      await c.post('/v1/payment_links', { currency: 'ZZZ', country: 'TH', amount: '1' }),
      await c.get('/v1/payout_intents?currency=ZZZ'),
      await c.get('/v1/payout_intents?limit=1000'),
      await c.get('/v1/balance_transactions?currency=ZZZ'),
      await c.get('/v1/payment_method_options?amount=100&currency=ZZZ&country=TH'),
      await c.post('/v1/report_runs', {
        report_type: 'payments.itemized',
        interval_start: '2026-01-01T00:00:00Z',
        interval_end: '2026-01-02T00:00:00Z',
        currency: 'ZZZ',
      }),
      await c.post('/v1/payment_links', { country: 'TH', currency: 'THB', customer_chooses: { minimum: '1', maximum: 'x' } }),
      await c.post('/v1/topup_intents', { amount: '100', currency: 'ZZZ', country: 'TH', merchant_reference: 't' }, { idempotencyKey: 'k-topup' }),
      await restricted.post('/v1/payout_intents', payoutBody()),
      await c.gql('mutation { createPayoutIntent(input: { amount: "1", currency: "ZZZ", country: "TH", merchantReference: "x" }) { id } }'),
    ];
    const messages = answers.flatMap((res) => [
      ...(res.body?.error?.message ? [res.body.error.message as string] : []),
      // GraphQL errors, and a batch's row errors
      ...((res.body?.errors ?? []) as { message: string }[]).map((e) => e.message),
    ]);
    expect(messages.length).toBeGreaterThanOrEqual(12); // a few answers are not errors (a discovery with nothing eligible)
    expect(messages.map((m) => [m, problemsOf(m)]).filter(([, p]) => p.length > 0)).toEqual([]);
    expect(answers[7].body.error.message).toBe(
      'report_type must be one of: balance.summary, balance_transactions.itemized, payments.itemized, payouts.itemized, refunds.itemized.',
    );
  });
});
