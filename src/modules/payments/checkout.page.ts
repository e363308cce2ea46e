/**
 * The hosted checkout page: server-rendered HTML that works without JavaScript (forms and
 * a meta refresh) and polls for status changes when JavaScript is available. Small
 * screens first. Every value is HTML-escaped; the Content-Security-Policy allows only
 * this page's own nonce'd style and script, data: images (the QR code) and same-origin
 * fetches and forms. This file holds each step's markup; the frame, style and script
 * are in checkout.layout.ts, the payer fields' labels and browser checks in checkout.fields.ts.
 */
import { BANKS, METHODS, PayerField } from '../methods/catalogue';
import type { PayerData } from '../methods/connector';
import { formatForDisplay } from '../../domain/currency';
import type { PaymentMethodOptionWire } from '../methods/method.wire';
import { clientRule, FORM_FIELDS } from './checkout.fields';
import { esc, renderPage } from './checkout.layout';
import type { CheckoutView } from './checkout.service';

function header(view: CheckoutView): string {
  const amount = formatForDisplay(BigInt(view.intent.amount), view.intent.currency);
  return (
    `<section class="card" aria-label="Payment summary"><p class="merchant">Pay <strong data-testid="merchant">${esc(view.merchantName)}</strong></p>` +
    `<p class="amount" data-testid="amount">${esc(amount)}</p></section>`
  );
}

function timeTag(iso: string): string {
  return `<time datetime="${esc(iso)}" data-local>${esc(iso.replace('T', ' ').slice(0, 16))} UTC</time>`;
}

/** The return address with the intent id and outcome appended (as Stripe's redirects do). */
export function returnUrlFor(view: CheckoutView): string | null {
  if (!view.returnUrl) return null;
  const url = new URL(view.returnUrl);
  url.searchParams.set('payment_intent', view.intent.id);
  url.searchParams.set('redirect_status', view.intent.status);
  return url.toString();
}

function optionValue(o: { payment_method: string; bank: string | null }): string {
  return o.bank ? `${o.payment_method}:${o.bank}` : o.payment_method;
}

/** Step 1: pick a method (and bank). A GET form, so Back works and nothing changes yet. */
export function choosePage(view: CheckoutView, nonce: string, notice?: string): string {
  const body =
    view.choices.length === 0
      ? `<section class="card"><h1>No payment method available</h1><p>${esc(view.merchantName)} cannot accept this payment online right now. Please contact the merchant.</p></section>`
      : `<section class="card"><h1>Choose how to pay</h1>${notice ? `<p class="alert" role="alert">${esc(notice)}</p>` : ''}
<form method="get" action="${esc(view.checkoutUrl)}">
${view.choices
  .map(
    (
      c,
      i,
    ) => `<label class="option"><input type="radio" name="option" value="${esc(optionValue(c))}"${i === 0 ? ' checked' : ''} data-testid="option-${esc(optionValue(c))}">
<span><strong>${esc(c.display_name)}</strong><small>${esc(METHODS[c.payment_method]?.hint ?? '')}</small></span></label>`,
  )
  .join('\n')}
<button type="submit" data-testid="continue">Continue</button></form></section>`;
  return renderPage({ nonce, title: `Pay ${view.merchantName}`, body: header(view) + body });
}

export type FieldErrors = Partial<Record<PayerField | 'form', string>>;

/** Step 2: the payer data the chosen method needs, then Pay. */
export function detailsPage(view: CheckoutView, choice: PaymentMethodOptionWire, nonce: string, values: PayerData, errors: FieldErrors = {}): string {
  const required = Object.keys(choice.options.payer).filter((f) => f !== 'bank') as (keyof typeof FORM_FIELDS)[];
  const fields = required
    .map((f) => {
      const spec = FORM_FIELDS[f];
      const err = errors[f];
      return `<label class="field" for="f-${f}">${esc(spec.label)}${spec.hint ? `<span class="hint">${esc(spec.hint)}</span>` : ''}
<input id="f-${f}" name="${f}" type="${spec.type}" autocomplete="${spec.autocomplete}" placeholder="${esc(spec.placeholder)}"${spec.inputmode ? ` inputmode="${spec.inputmode}"` : ''} value="${esc(values[f] ?? '')}" required${clientRule(f)}${err ? ` aria-invalid="true" aria-describedby="e-${f}"` : ''} data-testid="field-${f}">
${err ? `<span class="error" id="e-${f}" role="alert">${esc(err)}</span>` : ''}</label>`;
    })
    .join('\n');
  const body = `${header(view)}<section class="card"><h1>${esc(choice.display_name)}</h1>
${errors.form ? `<p class="alert" role="alert">${esc(errors.form)}</p>` : ''}
<form method="post" action="${esc(view.checkoutUrl)}" novalidate data-validate>
<input type="hidden" name="payment_method" value="${esc(choice.payment_method)}">
${choice.bank ? `<input type="hidden" name="bank" value="${esc(choice.bank)}">` : ''}
${fields || `<p class="muted">No details needed. ${esc(METHODS[choice.payment_method]?.hint ?? '')}</p>`}
<button type="submit" data-testid="pay">Pay ${esc(formatForDisplay(BigInt(view.intent.amount), view.intent.currency))}</button></form>
<a class="button secondary" href="${esc(view.checkoutUrl)}">Choose another method</a></section>`;
  return renderPage({ nonce, title: `Pay ${view.merchantName}`, body });
}

function waiting(view: CheckoutView, nonce: string, inner: string): string {
  return renderPage({
    nonce,
    title: `Pay ${view.merchantName}`,
    body: header(view) + inner,
    refreshSeconds: 5,
    refreshWithoutScript: true,
    poll: { statusUrl: `${view.checkoutUrl}/status`, status: view.intent.status },
  });
}

/** requires_action with a chosen method, processing, and the terminal states. */
export function statusPage(view: CheckoutView, nonce: string): string {
  const i = view.intent;
  const na = i.next_action;
  if (i.status === 'requires_action' && na?.type === 'display_qr_code') {
    return waiting(
      view,
      nonce,
      `<section class="card" data-testid="qr-section"><h1>Scan to pay with PromptPay</h1>
<img class="qr" src="${esc(na.display_qr_code.image_url_svg)}" alt="PromptPay QR code" width="260" height="260" data-testid="qr">
<p>Open your banking app, scan the code and confirm ${esc(formatForDisplay(BigInt(i.amount), i.currency))}.</p>
<p class="muted">Pay before ${timeTag(na.expires_at)}. This page updates by itself once you have paid.</p>
<p class="status" role="status" aria-live="polite">Waiting for your payment…</p></section>`,
    );
  }
  if (i.status === 'requires_action' && na?.type === 'display_bank_transfer_instructions') {
    const t = na.display_bank_transfer_instructions;
    return waiting(
      view,
      nonce,
      `<section class="card" data-testid="transfer-section"><h1>Transfer to complete your payment</h1>
<dl><dt>Bank</dt><dd data-testid="transfer-bank">${esc(t.bank_name)}</dd>
<dt>Account number</dt><dd data-testid="transfer-account">${esc(t.account_number)}</dd>
<dt>Account name</dt><dd>${esc(t.account_name)}</dd>
<dt>Amount</dt><dd data-testid="transfer-amount">${esc(formatForDisplay(BigInt(t.amount), t.currency))}</dd>
<dt>Reference</dt><dd data-testid="transfer-reference">${esc(t.reference)}</dd></dl>
<p class="muted">Transfer the exact amount and quote the reference. Pay before ${timeTag(na.expires_at)}.</p>
<p class="status" role="status" aria-live="polite">Waiting for your transfer…</p></section>`,
    );
  }
  if (i.status === 'requires_action' && na?.type === 'redirect_to_url') {
    const bank = view.bank ? (BANKS[view.bank]?.name ?? view.bank) : 'your bank';
    return waiting(
      view,
      nonce,
      `<section class="card"><h1>Approve at ${esc(bank)}</h1>
<p>Continue to ${esc(bank)} to approve the payment.</p>
<a class="button" href="${esc(na.url)}" data-testid="to-bank">Continue to ${esc(bank)}</a></section>`,
    );
  }
  if (i.status === 'requires_action') {
    return waiting(
      view,
      nonce,
      '<section class="card"><h1>Waiting for your payment</h1><p class="status" role="status">Please complete the payment.</p></section>',
    );
  }
  if (i.status === 'processing') {
    return waiting(
      view,
      nonce,
      `<section class="card" data-testid="processing"><h1>Confirming your payment</h1>
<p class="status" role="status" aria-live="polite">Your payment was received and is being confirmed. This page updates by itself.</p></section>`,
    );
  }
  const back = returnUrlFor(view);
  const backLink = back
    ? `<a class="button" href="${esc(back)}" data-testid="return">Return to ${esc(view.merchantName)}</a>`
    : '<p class="muted">You can close this window.</p>';
  if (i.status === 'succeeded') {
    return renderPage({
      nonce,
      title: 'Payment received',
      body: `${header(view)}<section class="card" data-testid="succeeded"><h1 class="ok">Payment received</h1>
<p>Thank you. ${esc(view.merchantName)} has received your payment.</p>
${i.receipt ? `<dl><dt>Receipt</dt><dd data-testid="receipt">${esc(i.receipt.receipt_number)}</dd><dt>Reference</dt><dd>${esc(i.receipt.reference)}</dd></dl>` : ''}
${back ? '<p class="muted">Taking you back to the merchant…</p>' : ''}${backLink}</section>`,
      ...(back ? { refreshSeconds: 5, refreshTo: back, redirectTo: { url: back, seconds: 2 } } : {}),
    });
  }
  const titles: Record<string, [string, string]> = {
    failed: ['Payment failed', i.failure_message ?? 'The payment did not go through.'],
    cancelled: ['Payment cancelled', 'This payment was cancelled by the merchant.'],
    expired: ['This payment link has expired', 'The time to pay has run out. Please return to the merchant to start again.'],
  };
  const [title, text] = titles[i.status] ?? ['Payment', i.status];
  return renderPage({
    nonce,
    title,
    body: `${header(view)}<section class="card" data-testid="${esc(i.status)}"><h1 class="bad">${esc(title)}</h1><p>${esc(text)}</p>${backLink}</section>`,
  });
}

/** The simulated bank's approval page (the target of redirect_to_url for online banking). */
export function bankPage(view: CheckoutView, nonce: string): string {
  const bank = view.bank ? (BANKS[view.bank]?.name ?? view.bank) : 'Your bank';
  const body = `<section class="card"><p class="merchant">Simulated online banking</p><h1>${esc(bank)}</h1>
<p>Approve a payment of <strong>${esc(formatForDisplay(BigInt(view.intent.amount), view.intent.currency))}</strong> to <strong>${esc(view.merchantName)}</strong>?</p>
<form method="post" action="${esc(view.checkoutUrl)}/authorize"><button type="submit" data-testid="approve">Approve payment</button></form>
<a class="button secondary" href="${esc(view.checkoutUrl)}">Back to checkout</a></section>`;
  return renderPage({ nonce, title: `${bank} - approve payment`, body });
}

/** Unknown token, bad address, or an unexpected failure: a plain page, never a stack trace. */
export function messagePage(nonce: string, title: string, text: string): string {
  return renderPage({
    nonce,
    title,
    body: `<section class="card" data-testid="message"><h1>${esc(title)}</h1><p>${esc(text)}</p></section>`,
  });
}
