/**
 * The create form of a payment link: a fixed amount or one the customer chooses between bounds;
 * description, the methods offered, single use, expiry; beside it, the payer's page as filled in
 * (the methods from the server's discovery for the link's currency, country and amount).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CreatePaymentLinkInput, LinkFieldsFragment } from '../gql/graphql';
import { fromMinor, money } from '../format';
import { CreatePaymentLinkDocument, LinkMethodsDocument } from '../operations/links';
import { useAction, useApp, useRecord } from '../ui';
import { isoOf, toMinor } from './amount';
import { LinkPreview } from './link-preview';

export function LinkForm({ exponents, onDone }: { exponents: Map<string, number>; onDone: (link: LinkFieldsFragment | null) => void }) {
  const { api, me } = useApp();
  const action = useAction();
  const [f, setF] = useState({ currency: 'THB', country: 'TH', mode: 'fixed', amount: '', min: '', max: '', description: '', single: false, expires: '' });
  const [invalid, setInvalid] = useState<string | null>(null);
  // Methods the merchant unticked; none: the link offers every eligible method (allowedMethods omitted).
  const [off, setOff] = useState<string[]>([]);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const set = (k: keyof typeof f) => (e: Event) => {
    const t = e.currentTarget as HTMLInputElement;
    setF({ ...f, [k]: t.type === 'checkbox' ? t.checked : t.value });
  };
  const exponent = exponents.get(f.currency.toUpperCase());
  // Without a Money field naming the currency's exponent, amounts are entered in minor units.
  const unit = exponent === undefined ? `${f.currency} minor units` : f.currency;
  const minor = (v: string) => (exponent === undefined ? (/^[1-9]\d*$/.test(v.trim()) ? v.trim() : null) : toMinor(v, exponent));
  const currency = f.currency.trim().toUpperCase();
  const country = f.country.trim().toUpperCase();
  const shown = (v: string) => {
    const m = minor(v);
    return m === null ? `– ${currency}` : exponent === undefined ? `${m} ${unit}` : money(fromMinor(m, currency, exponent));
  };
  // The payer's page offers the methods eligible for the fixed amount, or for any amount when the payer chooses it.
  const amount = f.mode === 'fixed' ? minor(f.amount) : null;
  const known = /^[A-Z]{3}$/.test(currency) && /^[A-Z]{2}$/.test(country);
  const methods = useRecord(
    async () => (known ? api.query(LinkMethodsDocument, amount ? { country, amountMoney: { minorUnits: amount, currency } } : { currency, country }) : null),
    `${currency}|${country}|${amount}`,
  );
  const eligible = methods.data?.paymentMethodOptions.nodes ?? [];
  const offered = eligible.filter((o) => !off.includes(o.paymentMethod));
  const choices = (methods.data?.paymentMethodSettings ?? []).filter((s) => eligible.some((o) => o.paymentMethod === s.paymentMethod));
  const toggle = (method: string) => setOff(off.includes(method) ? off.filter((m) => m !== method) : [...off, method]);

  function build(): CreatePaymentLinkInput | string {
    const input: CreatePaymentLinkInput = { country };
    if (f.mode === 'fixed') {
      const amount = minor(f.amount);
      if (!amount) return `Enter the amount in ${unit}.`;
      input.amountMoney = { minorUnits: amount, currency };
    } else {
      const minimum = minor(f.min);
      const maximum = minor(f.max);
      if (!minimum || !maximum) return `Enter the minimum and the maximum in ${unit}.`;
      if (BigInt(minimum) > BigInt(maximum)) return 'The minimum is above the maximum.';
      input.customerChoosesMoney = { minimum: { minorUnits: minimum, currency }, maximum: { minorUnits: maximum, currency } };
    }
    if (f.description.trim()) input.description = f.description.trim();
    if (off.length) {
      if (!offered.length) return 'Offer the payer at least one method.';
      input.allowedMethods = (methods.data?.paymentMethodSettings ?? []).map((s) => s.paymentMethod).filter((m) => !off.includes(m));
    }
    if (f.single) input.reusable = false;
    if (f.expires) {
      const at = isoOf(f.expires);
      if (!at || new Date(at).getTime() <= Date.now()) return 'The expiry must be in the future.';
      input.expiresAt = at;
    }
    return input;
  }

  const submit = (e: Event) => {
    e.preventDefault();
    const input = build();
    setInvalid(typeof input === 'string' ? input : null);
    if (typeof input === 'string') return;
    void action.run(async () => {
      const r = await api.mutate(CreatePaymentLinkDocument, { input });
      onDone(r.createPaymentLink ?? null);
    });
  };
  const error = invalid ?? action.error;
  return (
    <div class="link-create">
      <form class="stack" onSubmit={submit} data-testid="link-form" aria-labelledby="link-form-title">
        <h2 id="link-form-title">New payment link</h2>
        <div class="filters">
          <label>
            Currency
            <input ref={first} value={f.currency} onInput={set('currency')} maxLength={3} size={4} required />
          </label>
          <label>
            Country
            <input value={f.country} onInput={set('country')} maxLength={2} size={3} required />
          </label>
        </div>
        <fieldset>
          <legend>Amount</legend>
          <label class="inline">
            <input type="radio" name="mode" value="fixed" checked={f.mode === 'fixed'} onChange={set('mode')} /> Fixed amount
          </label>
          <label class="inline">
            <input type="radio" name="mode" value="range" checked={f.mode === 'range'} onChange={set('mode')} /> Customer chooses
          </label>
          {f.mode === 'fixed' ? (
            <label>
              Amount ({unit})
              <input value={f.amount} onInput={set('amount')} inputMode="decimal" data-testid="link-amount" />
            </label>
          ) : (
            <div class="filters">
              <label>
                Minimum ({unit})
                <input value={f.min} onInput={set('min')} inputMode="decimal" />
              </label>
              <label>
                Maximum ({unit})
                <input value={f.max} onInput={set('max')} inputMode="decimal" />
              </label>
            </div>
          )}
        </fieldset>
        <label>
          Description (shown to the payer)
          <input value={f.description} onInput={set('description')} maxLength={500} data-testid="link-description" />
        </label>
        {choices.length > 0 && (
          <fieldset data-testid="link-methods">
            <legend>Methods offered</legend>
            {choices.map((s) => (
              <label class="inline" key={s.paymentMethod}>
                <input
                  type="checkbox"
                  checked={!off.includes(s.paymentMethod)}
                  onChange={() => toggle(s.paymentMethod)}
                  data-testid={`method-${s.paymentMethod}`}
                />{' '}
                {s.displayName}
              </label>
            ))}
          </fieldset>
        )}
        <label class="inline">
          <input type="checkbox" checked={f.single} onChange={set('single')} /> Single use (one successful payment)
        </label>
        <label>
          Expires (optional)
          <input type="datetime-local" value={f.expires} onInput={set('expires')} />
        </label>
        {error && (
          <p class="error" role="alert" data-testid="link-error">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy} data-testid="create-link">
            Create link
          </button>
          <button type="button" onClick={() => onDone(null)}>
            Cancel
          </button>
        </div>
      </form>
      <LinkPreview
        merchant={me.merchant.name}
        description={f.description.trim()}
        currency={currency}
        amount={f.mode === 'fixed' ? shown(f.amount) : { min: shown(f.min), max: shown(f.max) }}
        options={!known ? 'Enter the currency and the country to see the methods.' : (methods.error ?? (methods.data ? offered : 'Reading the methods…'))}
      />
    </div>
  );
}
