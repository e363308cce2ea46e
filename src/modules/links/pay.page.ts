/**
 * The payment link's page (/pay/<token>): the amount (or a field for it), the description and
 * the methods, then Continue, which goes on to the hosted checkout. Server-rendered in the
 * checkout's frame (checkout.layout.ts: its CSP nonce, style and script); every value is
 * HTML-escaped. Works without JavaScript, at 320 px, and with a keyboard only.
 */
import { METHODS } from '../methods/catalogue';
import { formatForDisplay } from '../../domain/currency';
import { esc, renderPage } from '../payments/checkout.layout';
import type { PayView } from './pay.service';

function optionValue(o: { payment_method: string; bank: string | null }): string {
  return o.bank ? `${o.payment_method}:${o.bank}` : o.payment_method;
}

export function linkPage(view: PayView, nonce: string, o: { error?: string; amount?: string; option?: string } = {}): string {
  const { link } = view;
  const amount =
    link.amount !== null
      ? `<p class="amount" data-testid="amount">${esc(formatForDisplay(link.amount, link.currency))}</p>`
      : `<label class="field" for="f-amount">Amount (${esc(link.currency)})<span class="hint" id="h-amount">Between ${esc(formatForDisplay(link.minAmount ?? 0n, link.currency))} and ${esc(formatForDisplay(link.maxAmount ?? 0n, link.currency))}</span>
<input id="f-amount" name="amount" type="text" inputmode="decimal" autocomplete="transaction-amount" required aria-describedby="h-amount" value="${esc(o.amount ?? '')}" data-testid="field-amount"></label>`;
  const methods =
    view.choices.length === 0
      ? '<p>No payment method is available right now. Please contact the merchant.</p>'
      : `<fieldset class="methods"><legend>Choose how to pay</legend>
${view.choices
  .map((c, i) => {
    const v = optionValue(c);
    const checked = o.option ? o.option === v : i === 0;
    return `<label class="option"><input type="radio" name="option" value="${esc(v)}"${checked ? ' checked' : ''} data-testid="option-${esc(v)}">
<span><strong>${esc(c.display_name)}</strong><small>${esc(METHODS[c.payment_method]?.hint ?? '')}</small></span></label>`;
  })
  .join('\n')}</fieldset>`;
  const body = `<section class="card" aria-label="Payment summary"><p class="merchant">Pay <strong data-testid="merchant">${esc(view.merchantName)}</strong></p>
${link.description ? `<h1 data-testid="description">${esc(link.description)}</h1>` : '<h1>Payment</h1>'}</section>
<section class="card"><form method="post" action="${esc(view.action)}">
${o.error ? `<p class="alert" role="alert" data-testid="error">${esc(o.error)}</p>` : ''}
<input type="hidden" name="visit" value="${esc(view.visit)}">
${amount}
${methods}
${view.choices.length ? '<button type="submit" data-testid="continue">Continue</button>' : ''}</form></section>`;
  return renderPage({ nonce, title: `Pay ${view.merchantName}`, body });
}
