/**
 * The hosted checkout page's HTTP surface without a browser: the HTML pages, the form
 * POST, the JSON status endpoint and the simulated bank's approval. Bad input is
 * rejected with a clear message and changes nothing; the token in the address reaches
 * its own intent and nothing else, and nothing at all once the intent is final.
 */
import { randomBytes } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';

let srv: TestServer;
let merchant: Client;

beforeAll(async () => {
  srv = await startServer();
  merchant = await srv.merchant('<b>Baan & Co</b>');
});

afterAll(async () => {
  await srv?.close();
});

interface Page {
  status: number;
  headers: Headers;
  html: string;
}

async function hosted(amount = '250000', extra: Record<string, unknown> = {}) {
  const res = await merchant.post('/v1/payment_intents', {
    amount,
    currency: 'THB',
    country: 'TH',
    checkout_mode: 'hosted',
    merchant_reference: ref('co'),
    customer: { email: 'somchai@example.com' },
    return_url: 'https://shop.example/orders/1?from=checkout',
    ...extra,
  });
  expect(res.status).toBe(201);
  const url = new URL(res.body.next_action.url as string);
  return { id: res.body.id as string, url: url.toString(), path: url.pathname, token: url.pathname.split('/')[2] };
}

async function get(path: string): Promise<Page> {
  const res = await fetch(`${srv.url}${path}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

async function post(path: string, body: string | Record<string, string>, contentType = 'application/x-www-form-urlencoded'): Promise<Page> {
  const raw = typeof body === 'string' ? body : new URLSearchParams(body).toString();
  const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body: raw, redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The messages a page shows the payer (field errors and notices). */
function alerts(html: string): string[] {
  return [...html.matchAll(/role="alert">([^<]*)</g)].map((m) => m[1].replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
}

/** Everything about the intent and the merchant's event stream that a rejected form must not change. */
async function snapshot(id: string) {
  const intent = await merchant.get(`/v1/payment_intents/${id}`);
  const events = await merchant.get('/v1/events?limit=100');
  expect(intent.status).toBe(200);
  expect(events.status).toBe(200);
  return { intent: intent.body, events: (events.body.data as { id: string }[]).map((e) => e.id) };
}

function expectHtml(page: Page, status: number): void {
  expect(page.status).toBe(status);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.html).toMatch(/^<!doctype html>/);
  expect(page.html).not.toMatch(/\bat [^ ]+\.js:\d+|TypeError|ReferenceError|QueryFailedError|SQLITE_|ER_[A-Z_]+/);
}

describe('the page itself', () => {
  test('is a phone-ready HTML page with a strict CSP, nothing external, and escaped merchant data', async () => {
    const pi = await hosted('123450');
    expect(pi.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const page = await get(pi.path);
    expectHtml(page, 200);
    expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('img-src data:');
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Every script and style block carries the nonce; no inline handlers or style attributes.
    expect([...page.html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([`<script nonce="${nonce}">`]);
    expect([...page.html.matchAll(/<style\b[^>]*>/g)].map((m) => m[0])).toEqual([`<style nonce="${nonce}">`]);
    expect(page.html).not.toMatch(/\son[a-z]+=|\sstyle=/i);
    expect(page.html).not.toMatch(/(?:src|href|action)="(?:https?:)?\/\//);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.html).toContain('&lt;b&gt;Baan &amp; Co&lt;/b&gt;');
    expect(page.html).not.toContain('<b>Baan');
    expect(page.html).toContain('1,234.50 THB');
    // Each request gets its own nonce.
    const again = await get(pi.path);
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  test('the details step asks exactly for the fields the chosen method needs, with the browser check attached', async () => {
    const pi = await hosted();
    const transfer = await get(`${pi.path}?option=bank_transfer:KBANK`);
    expectHtml(transfer, 200);
    expect([...transfer.html.matchAll(/<input id="f-([a-z_]+)"/g)].map((m) => m[1])).toEqual(['account_name', 'account_number']);
    expect(transfer.html).toContain('data-pattern="^[0-9]{6,20}$"');
    expect(transfer.html).toContain('data-invalid="Enter your account number: 6 to 20 digits."');
    const thai = await get(`${pi.path}?option=bank_transfer:KTB`);
    expect([...thai.html.matchAll(/<input id="f-([a-z_]+)"/g)].map((m) => m[1])).toEqual(['name_th']);
    // A stale or made-up option just shows the list again, with a notice.
    const stale = await get(`${pi.path}?option=direct_debit:KBANK`);
    expectHtml(stale, 200);
    expect(alerts(stale.html)).toEqual(['That payment method is not available for this payment. Choose another one.']);
  });
});

describe('bad form input', () => {
  test('is rejected with a clear message per field, keeps what the payer typed, and changes nothing', async () => {
    const pi = await hosted();
    const before = await snapshot(pi.id);
    const transfer = { payment_method: 'bank_transfer', bank: 'KBANK' };
    const cases: [string, string | Record<string, string>, number, string[]][] = [
      ['empty fields', { ...transfer, account_name: '', account_number: ' ' }, 400, ['Enter the account holder name.', 'Enter your bank account number.']],
      ['fields absent', transfer, 400, ['Enter the account holder name.', 'Enter your bank account number.']],
      [
        'letters in the account number',
        { ...transfer, account_name: 'Somchai Jaidee', account_number: '12ab' },
        400,
        ['Enter your account number: 6 to 20 digits.'],
      ],
      [
        'account number too short',
        { ...transfer, account_name: 'Somchai Jaidee', account_number: '12345' },
        400,
        ['Enter your account number: 6 to 20 digits.'],
      ],
      [
        'account name too long',
        { ...transfer, account_name: 'a'.repeat(300), account_number: '1234567890' },
        400,
        ['Enter the account holder name (at most 256 characters).'],
      ],
      [
        'Latin where Thai script is needed',
        { payment_method: 'bank_transfer', bank: 'KTB', name_th: 'Somchai' },
        400,
        ['Enter your name in Thai script, for example สมชาย ใจดี.'],
      ],
      ['no method', { account_name: 'x' }, 400, ['That payment method is not available for this payment. Choose another one.']],
      ['unknown method', { payment_method: 'bitcoin' }, 400, ['That payment method is not available for this payment. Choose another one.']],
      [
        'a direct-only method',
        { payment_method: 'direct_debit', bank: 'KBANK', account_name: 'x', account_number: '1234567890', name_th: 'สมชาย' },
        400,
        ['That payment method is not available for this payment. Choose another one.'],
      ],
      [
        'a bank the method does not serve',
        { payment_method: 'bank_transfer', bank: 'ZZZ', account_name: 'x', account_number: '1234567890' },
        400,
        ['That payment method is not available for this payment. Choose another one.'],
      ],
      [
        'a method that needs a bank, without one',
        { payment_method: 'bank_transfer', account_name: 'x', account_number: '1234567890' },
        400,
        ['That payment method is not available for this payment. Choose another one.'],
      ],
    ];
    for (const [label, body, status, messages] of cases) {
      const page = await post(pi.path, body);
      try {
        expectHtml(page, status);
        expect(alerts(page.html)).toEqual(messages);
      } catch (err) {
        throw new Error(`${label}: ${(err as Error).message}`);
      }
    }
    // What the payer typed comes back, escaped.
    const typed = await post(pi.path, { ...transfer, account_name: '<script>alert(1)</script>', account_number: '12' });
    expect(typed.status).toBe(400);
    expect(typed.html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(typed.html).not.toContain('<script>alert(1)');
    expect(await snapshot(pi.id)).toEqual(before);
  });

  test('a body that is not a form, or too big, gets the plain error page and changes nothing', async () => {
    const pi = await hosted();
    const before = await snapshot(pi.id);
    const pages = [
      await post(pi.path, 'payment_method=promptpay', 'text/plain'),
      await post(pi.path, '--x\r\n', 'multipart/form-data; boundary=x'),
      await post(pi.path, `payment_method=promptpay&pad=${'a'.repeat(20 * 1024)}`),
      await post(pi.path, '{"payment_method":', 'application/json'),
    ];
    for (const page of pages) {
      expectHtml(page, 400);
      expect(page.html).toContain('The form could not be read. Go back and try again.');
    }
    // JSON with the wrong types is just an unknown choice.
    const typed = await post(pi.path, JSON.stringify({ payment_method: 5, bank: ['KBANK'] }), 'application/json');
    expectHtml(typed, 400);
    expect(alerts(typed.html)).toEqual(['That payment method is not available for this payment. Choose another one.']);
    expect(await snapshot(pi.id)).toEqual(before);
  });

  test('fields the chosen method does not ask for are ignored, not reported', async () => {
    const pi = await hosted();
    const res = await post(pi.path, {
      payment_method: 'bank_transfer',
      bank: 'KBANK',
      account_name: 'Somchai Jaidee',
      account_number: '123 456 7890',
      customer_phone: 'not a phone',
    });
    expect(res.status).toBe(303);
    const intent = (await merchant.get(`/v1/payment_intents/${pi.id}`)).body;
    expect(intent.payment_method).toBe('bank_transfer');
    expect(intent.next_action.type).toBe('display_bank_transfer_instructions');
  });
});

describe('the token', () => {
  test('acts on its own intent only: another intent, the API and a tampered token get nothing', async () => {
    const a = await hosted('50000');
    const b = await hosted('60000');
    expect(a.token).not.toBe(b.token);
    expect(a.url).not.toContain(a.id);
    const beforeB = await snapshot(b.id);

    // Naming B in A's form does nothing to B.
    const res = await post(a.path, { payment_method: 'promptpay', id: b.id, payment_intent: b.id, token: b.token });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(a.path);
    const intentA = (await merchant.get(`/v1/payment_intents/${a.id}`)).body;
    expect(intentA.payment_method).toBe('promptpay');
    const afterB = await snapshot(b.id);
    expect(afterB.intent).toEqual(beforeB.intent);

    // A's pages show A and never B.
    const pageA = await get(a.path);
    expect(pageA.html).toContain('data-testid="qr"');
    expect(pageA.html).toContain('500.00 THB');
    expect(pageA.html).not.toContain(b.id);
    expect(pageA.html).not.toContain(b.token);
    const pageB = await get(b.path);
    expect(pageB.html).toContain('Choose how to pay');

    // The status endpoint says only the status.
    const status = await fetch(`${srv.url}${a.path}/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ status: 'requires_action' });

    // The token is no API credential.
    for (const authorization of [`Bearer ${a.token}`, `Basic ${Buffer.from(`${a.token}:`).toString('base64')}`]) {
      const api = await fetch(`${srv.url}/v1/payment_intents/${a.id}`, { headers: { authorization } });
      expect(api.status).toBe(401);
    }

    // One character off is an unknown link, for the page, the form, the status and the bank page.
    const tampered = `/checkout/${a.token.slice(0, -1)}${a.token.endsWith('A') ? 'B' : 'A'}`;
    expectHtml(await get(tampered), 404);
    expectHtml(await post(tampered, { payment_method: 'promptpay' }), 404);
    expectHtml(await post(`${tampered}/authorize`, ''), 404);
    const unknownStatus = await fetch(`${srv.url}${tampered}/status`);
    expect(unknownStatus.status).toBe(404);
    expect(await unknownStatus.json()).toEqual({ status: null });

    // A QR payment has no bank page to approve.
    const approve = await post(`${a.path}/authorize`, '');
    expect(approve.status).toBe(303);
    expect((await merchant.get(`/v1/payment_intents/${a.id}`)).body.status).toBe('requires_action');
  });

  test('can do nothing once a method is chosen or the intent is final', async () => {
    const pi = await hosted();
    expect((await post(pi.path, { payment_method: 'promptpay' })).status).toBe(303);
    const chosen = await snapshot(pi.id);
    // A second choice is refused (back to the page), the first stands.
    const second = await post(pi.path, {
      payment_method: 'bank_transfer',
      bank: 'KBANK',
      account_name: 'Somchai Jaidee',
      account_number: '1234567890',
    });
    expect(second.status).toBe(303);
    expect(await snapshot(pi.id)).toEqual(chosen);

    expect((await merchant.post(`/v1/test_helpers/payment_intents/${pi.id}/succeed`, {})).status).toBe(200);
    const done = await snapshot(pi.id);
    expect(done.intent.status).toBe('succeeded');
    expect((await post(pi.path, { payment_method: 'promptpay' })).status).toBe(303);
    expect((await post(`${pi.path}/authorize`, '')).status).toBe(303);
    expect((await get(`${pi.path}/authorize`)).status).toBe(303);
    expect(await snapshot(pi.id)).toEqual(done);
    const page = await get(pi.path);
    expectHtml(page, 200);
    expect(page.html).toContain('Payment received');
    expect(page.html).toContain('href="https://shop.example/orders/1?from=checkout&amp;payment_intent=' + pi.id + '&amp;redirect_status=succeeded"');
  });

  test('cancelled and expired intents: a final page (410 when expired) and no further action', async () => {
    const cancelled = await hosted();
    expect((await merchant.post(`/v1/payment_intents/${cancelled.id}/cancel`, {})).status).toBe(200);
    const cPage = await get(cancelled.path);
    expectHtml(cPage, 200);
    expect(cPage.html).toContain('Payment cancelled');
    expect(cPage.html).not.toContain('Choose how to pay');

    const expired = await hosted();
    expect((await merchant.post(`/v1/test_helpers/payment_intents/${expired.id}/expire`, {})).status).toBe(200);
    const before = await snapshot(expired.id);
    const ePage = await get(expired.path);
    expectHtml(ePage, 410);
    expect(ePage.html).toContain('This payment link has expired');
    expect(ePage.html).toContain('redirect_status=expired');
    expect((await post(expired.path, { payment_method: 'promptpay' })).status).toBe(303);
    expect(await snapshot(expired.id)).toEqual(before);
  });
});

describe('links that lead nowhere', () => {
  test('a trailing slash is dropped', async () => {
    const pi = await hosted();
    const res = await get(`${pi.path}/`);
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(pi.path);
  });

  test('unknown, malformed and mangled links get the HTML 404 page', async () => {
    for (const p of [
      `/checkout/${randomBytes(32).toString('base64url')}`,
      '/checkout/short',
      `/checkout/${'A'.repeat(90)}`,
      '/checkout/',
      '/checkout/..%2F..%2Fv1%2Fbalances',
    ]) {
      const page = await get(p);
      try {
        expectHtml(page, 404);
        expect(page.html).toContain('Payment link not found');
      } catch (err) {
        throw new Error(`${p}: ${(err as Error).message}`);
      }
    }
  });
});

describe('online banking (redirect)', () => {
  test('the payer is sent to the bank page, approves once, and the intent processes', async () => {
    const pi = await hosted();
    const chosen = await post(pi.path, { payment_method: 'online_banking', bank: 'KTB' });
    expect(chosen.status).toBe(303);
    const bankUrl = new URL(chosen.headers.get('location') ?? '', srv.url);
    expect(bankUrl.pathname).toBe(`${pi.path}/authorize`);
    const bank = await get(bankUrl.pathname);
    expectHtml(bank, 200);
    expect(bank.html).toContain('Krungthai Bank');
    expect(bank.html).toContain('data-testid="approve"');
    const approved = await post(bankUrl.pathname, '');
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(pi.path);
    const after = await snapshot(pi.id);
    expect(after.intent.status).toBe('processing');
    // Approving again changes nothing.
    expect((await post(bankUrl.pathname, '')).status).toBe(303);
    expect(await snapshot(pi.id)).toEqual(after);
    const page = await get(pi.path);
    expect(page.html).toContain('Confirming your payment');
  });
});
