/**
 * The hosted checkout page: server-rendered HTML that works without JavaScript (forms and
 * a meta refresh) and polls for status changes when JavaScript is available. Small
 * screens first. Every value is HTML-escaped; the Content-Security-Policy allows only
 * this page's own nonce'd style and script, data: images (the QR code) and same-origin
 * fetches and forms.
 */
import { BANKS, METHODS, PayerField } from '../methods/catalogue';
import type { PayerData } from '../methods/connector';
import { formatForDisplay } from '../methods/currency';
import type { PaymentMethodOptionWire } from '../methods/method.wire';
import {
  AccountName,
  ACCOUNT_NUMBER_DIGITS,
  ACCOUNT_NUMBER_SEPARATORS,
  CustomerName,
  CustomerPhone,
  E164,
  NameTh,
  PHONE_SEPARATORS,
  THAI_NAME,
} from './payment-request.schemas';
import type { CheckoutView } from './checkout.service';

export function esc(value: string | number | bigint | boolean | null | undefined): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Payer fields the page can collect (bank comes with the method choice). */
export const FORM_FIELDS: Readonly<
  Record<Exclude<PayerField, 'bank'>, { label: string; type: string; autocomplete: string; placeholder: string; hint?: string; inputmode?: string }>
> = {
  customer_name: { label: 'Full name', type: 'text', autocomplete: 'name', placeholder: 'Somchai Jaidee' },
  customer_phone: {
    label: 'Mobile number',
    type: 'tel',
    autocomplete: 'tel',
    placeholder: '+66812345678',
    hint: 'International format: + and country code.',
  },
  account_name: { label: 'Account holder name', type: 'text', autocomplete: 'name', placeholder: 'As shown on your bank account' },
  account_number: {
    label: 'Your bank account number',
    type: 'text',
    autocomplete: 'off',
    placeholder: '1234567890',
    inputmode: 'numeric',
    hint: 'The account you pay from.',
  },
  name_th: {
    label: 'Name in Thai',
    type: 'text',
    autocomplete: 'off',
    placeholder: 'สมชาย ใจดี',
    hint: 'As registered with your bank, in Thai script.',
  },
};

type FormField = keyof typeof FORM_FIELDS;

/**
 * The server's rule for each form field (the create request's schemas, payment-request.schemas.ts),
 * restated for the browser check: characters stripped before matching, the pattern, the
 * maximum length. The server re-checks everything; the browser check only saves a round trip.
 */
const CLIENT_RULES: Readonly<Record<FormField, { strip?: string; pattern?: RegExp; max: number }>> = {
  customer_name: { max: CustomerName.maxLength as number },
  customer_phone: { strip: PHONE_SEPARATORS, pattern: new RegExp(E164), max: CustomerPhone.maxLength as number },
  account_name: { max: AccountName.maxLength as number },
  account_number: {
    strip: ACCOUNT_NUMBER_SEPARATORS,
    pattern: new RegExp(`^[0-9]{${ACCOUNT_NUMBER_DIGITS.min},${ACCOUNT_NUMBER_DIGITS.max}}$`),
    max: ACCOUNT_NUMBER_DIGITS.max,
  },
  name_th: { pattern: new RegExp(THAI_NAME), max: NameTh.maxLength as number },
};

/** Payer-facing wording for each field's format error (browser and server say the same). */
export const FIELD_MESSAGES: Readonly<Record<FormField, { missing: string; invalid: string }>> = {
  customer_name: { missing: 'Enter your full name.', invalid: 'Enter your full name (at most 256 characters).' },
  customer_phone: {
    missing: 'Enter your mobile number.',
    invalid: 'Enter your mobile number in international format, for example +66812345678.',
  },
  account_name: { missing: 'Enter the account holder name.', invalid: 'Enter the account holder name (at most 256 characters).' },
  account_number: { missing: 'Enter your bank account number.', invalid: 'Enter your account number: 6 to 20 digits.' },
  name_th: { missing: 'Enter your name in Thai.', invalid: 'Enter your name in Thai script, for example สมชาย ใจดี.' },
};

export interface PageOptions {
  nonce: string;
  title: string;
  body: string;
  /** Seconds until the browser reloads; 0 = never. */
  refreshSeconds?: number;
  /** Only without JavaScript (the script polls instead). */
  refreshWithoutScript?: boolean;
  /** Navigate here after `refreshSeconds` instead of reloading. */
  refreshTo?: string;
  /** Data for the polling script; absent = no polling. */
  poll?: { statusUrl: string; status: string };
  redirectTo?: { url: string; seconds: number };
}

const STYLE = `
:root{color-scheme:light;--ink:#1f2933;--muted:#616e7c;--line:#d9e2ec;--brand:#0b6bcb;--ok:#18794e;--bad:#b42318;--bg:#f5f7fa}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Thai",sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.25rem;margin:0 0 1rem}
.merchant{font-size:.9rem;color:var(--muted);margin:0}.amount{font-size:1.9rem;font-weight:700;margin:.1rem 0 0}
h1{font-size:1.25rem;margin:0 0 .75rem}h2{font-size:1.05rem;margin:0 0 .75rem}
.option{display:flex;gap:.75rem;align-items:flex-start;border:1px solid var(--line);border-radius:10px;padding:.8rem;margin:0 0 .6rem;cursor:pointer}
.option:has(input:checked){border-color:var(--brand);box-shadow:0 0 0 2px rgba(11,107,203,.15)}
.option input{margin-top:.3rem;width:1.2rem;height:1.2rem}.option small{display:block;color:var(--muted)}
label.field{display:block;margin:0 0 1rem;font-weight:600}
label.field input{display:block;width:100%;margin-top:.3rem;padding:.75rem;font:inherit;border:1px solid #9aa5b1;border-radius:8px}
label.field input[aria-invalid=true]{border-color:var(--bad)}
.hint{display:block;font-weight:400;font-size:.85rem;color:var(--muted)}.error{display:block;font-weight:600;font-size:.9rem;color:var(--bad)}
.alert{border-radius:8px;padding:.75rem;margin:0 0 1rem;background:#fde8e8;color:var(--bad)}
button,.button{display:block;width:100%;padding:.9rem;font:inherit;font-weight:700;text-align:center;color:#fff;background:var(--brand);border:0;border-radius:10px;text-decoration:none;cursor:pointer}
.secondary{background:#fff;color:var(--brand);border:1px solid var(--brand);margin-top:.6rem}
.qr{display:block;width:min(100%,260px);height:auto;margin:0 auto 1rem;image-rendering:pixelated}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0}dt{color:var(--muted)}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
@media (max-width:360px){main{padding:.6rem}.card{padding:1rem}dl{grid-template-columns:1fr;gap:0}dd{margin:0 0 .5rem}}
.status{font-weight:700}.ok{color:var(--ok)}.bad{color:var(--bad)}.muted{color:var(--muted);font-size:.9rem}
a{color:var(--brand)}
`;

const SCRIPT = `
(function(){
  var cfg=document.getElementById('poll');
  if(cfg){var url=cfg.getAttribute('data-url'),status=cfg.getAttribute('data-status');
    var tick=function(){fetch(url,{cache:'no-store',headers:{accept:'application/json'}}).then(function(r){return r.json()}).then(function(j){
      if(j&&j.status&&j.status!==status){location.replace(location.pathname);}else{setTimeout(tick,1500);}
    }).catch(function(){setTimeout(tick,3000)});};
    setTimeout(tick,1500);}
  var go=document.getElementById('redirect');
  if(go){setTimeout(function(){location.assign(go.getAttribute('data-url'))},Number(go.getAttribute('data-seconds'))*1000);}
  var form=document.querySelector('form[data-validate]');
  if(form){
    var show=function(inp,msg){var id='e-'+inp.name,el=document.getElementById(id);
      if(!msg){if(el){el.parentNode.removeChild(el);}inp.removeAttribute('aria-invalid');inp.removeAttribute('aria-describedby');return;}
      if(!el){el=document.createElement('span');el.className='error';el.id=id;el.setAttribute('role','alert');inp.parentNode.appendChild(el);}
      el.textContent=msg;inp.setAttribute('aria-invalid','true');inp.setAttribute('aria-describedby',id);};
    var check=function(inp){var v=inp.value.replace(/\s+/g,' ').trim(),d=inp.dataset;
      if(d.strip){v=v.replace(new RegExp(d.strip,'g'),'');}
      if(!v){return d.missing;}
      if(v.length>Number(d.max)||(d.pattern&&!new RegExp(d.pattern,'u').test(v))){return d.invalid;}
      return '';};
    var inputs=form.querySelectorAll('input[data-missing]');
    inputs.forEach(function(inp){inp.addEventListener('input',function(){if(inp.getAttribute('aria-invalid')==='true'&&!check(inp)){show(inp,'');}});});
    form.addEventListener('submit',function(ev){var first=null;
      inputs.forEach(function(inp){var msg=check(inp);show(inp,msg);if(msg&&!first){first=inp;}});
      if(first){ev.preventDefault();first.focus();return;}
      var b=form.querySelector('button[type=submit]');if(b){setTimeout(function(){b.disabled=true;},0);}
    });
  }
  document.querySelectorAll('time[data-local]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));if(!isNaN(d)){t.textContent=d.toLocaleString([],{dateStyle:'medium',timeStyle:'short'});}});
})();
`;

export function renderPage(o: PageOptions): string {
  const meta = o.refreshSeconds ? `<meta http-equiv="refresh" content="${o.refreshSeconds}${o.refreshTo ? `;url=${esc(o.refreshTo)}` : ''}">` : '';
  const refresh = meta && o.refreshWithoutScript ? `<noscript>${meta}</noscript>` : meta;
  const poll = o.poll ? `<div id="poll" hidden data-url="${esc(o.poll.statusUrl)}" data-status="${esc(o.poll.status)}"></div>` : '';
  const redirect = o.redirectTo ? `<div id="redirect" hidden data-url="${esc(o.redirectTo.url)}" data-seconds="${o.redirectTo.seconds}"></div>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(o.title)}</title>${refresh}
<style nonce="${o.nonce}">${STYLE}</style></head>
<body><main>${o.body}</main>${poll}${redirect}<script nonce="${o.nonce}">${SCRIPT}</script></body></html>`;
}

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

function clientRule(f: FormField): string {
  const r = CLIENT_RULES[f];
  const m = FIELD_MESSAGES[f];
  return (
    ` data-max="${r.max}"${r.strip ? ` data-strip="${esc(r.strip)}"` : ''}${r.pattern ? ` data-pattern="${esc(r.pattern.source)}"` : ''}` +
    ` data-missing="${esc(m.missing)}" data-invalid="${esc(m.invalid)}"`
  );
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
