/** Data integrity of the method catalogue (src/modules/methods/catalogue.ts, providers.ts). */
import { BANKS, CHECKOUT_MODES, METHODS, PAYER_FIELDS, PAYER_FIELD_PATHS, PAYMENT_METHODS } from '../../src/modules/methods/catalogue';
import { PROVIDERS, localCodes } from '../../src/modules/methods/providers';

const offers = PROVIDERS.flatMap((p) => p.offers.map((o) => ({ provider: p, offer: o })));

test('METHODS has exactly one definition per payment method, under its own name', () => {
  expect(Object.keys(METHODS).sort()).toEqual([...PAYMENT_METHODS].sort());
  for (const name of PAYMENT_METHODS) {
    expect(METHODS[name].name).toBe(name);
    expect(METHODS[name].displayName.length).toBeGreaterThan(0);
    expect(METHODS[name].actionTtlMs).toBeGreaterThanOrEqual(0);
    expect(METHODS[name].nextActionType === null).toBe(METHODS[name].actionTtlMs === 0);
  }
});

test('BANKS are keyed by their own code, with a name and a country', () => {
  for (const [code, bank] of Object.entries(BANKS)) {
    expect(bank.code).toBe(code);
    expect(bank.name.length).toBeGreaterThan(0);
    expect(bank.country).toMatch(/^[A-Z]{2}$/);
  }
});

test('every payer field maps to a create-request path', () => {
  expect(Object.keys(PAYER_FIELD_PATHS).sort()).toEqual([...PAYER_FIELDS].sort());
  for (const p of Object.values(PAYER_FIELD_PATHS)) expect(p).toMatch(/^(customer|payment_method_options)\.[a-z_]+$/);
});

test('provider codes are unique and every provider serves at least one offer in a known environment', () => {
  const codes = PROVIDERS.map((p) => p.code);
  expect(new Set(codes).size).toBe(codes.length);
  for (const p of PROVIDERS) {
    expect(p.offers.length).toBeGreaterThan(0);
    expect(p.environments.length).toBeGreaterThan(0);
    for (const env of p.environments) expect(['test', 'live']).toContain(env);
  }
});

describe.each(offers.map(({ provider, offer }) => [`${provider.code}/${offer.localCode}`, provider, offer] as const))('offer %s', (_label, provider, offer) => {
  test('references a method that exists', () => {
    expect(PAYMENT_METHODS).toContain(offer.method);
    expect(METHODS[offer.method]).toBeDefined();
  });

  test('has sane bounds, countries, currencies, checkout modes and payer fields', () => {
    expect(offer.minAmount).toBeGreaterThan(0n);
    expect(offer.maxAmount).toBeGreaterThanOrEqual(offer.minAmount);
    expect(offer.countries.length).toBeGreaterThan(0);
    for (const c of offer.countries) expect(c).toMatch(/^[A-Z]{2}$/);
    expect(offer.currencies.length).toBeGreaterThan(0);
    for (const c of offer.currencies) expect(c).toMatch(/^[A-Z]{3,6}$/);
    expect(offer.checkoutModes.length).toBeGreaterThan(0);
    for (const m of offer.checkoutModes) expect(CHECKOUT_MODES).toContain(m);
    for (const f of offer.payer) expect(PAYER_FIELDS).toContain(f);
    expect(new Set(offer.payer).size).toBe(offer.payer.length);
    expect(Number.isInteger(offer.priority)).toBe(true);
  });

  test('has banks exactly when the method has a bank choice, each one known and in an offered country', () => {
    const banks = Object.entries(offer.banks ?? {});
    expect(banks.length > 0).toBe(METHODS[offer.method].bankChoice);
    for (const [code, route] of banks) {
      expect(BANKS[code]).toBeDefined();
      expect(offer.countries).toContain(BANKS[code].country);
      expect(route.localCode.length).toBeGreaterThan(0);
    }
  });

  test('bank transfer routes say where the money goes: a collection account or virtual accounts', () => {
    if (offer.method !== 'bank_transfer') return;
    for (const route of Object.values(offer.banks ?? {})) {
      expect(Boolean(route.account) !== Boolean(route.virtualAccountPrefix)).toBe(true);
      if (route.account) expect(route.account.number).toMatch(/^\d+$/);
      if (route.virtualAccountPrefix) expect(route.virtualAccountPrefix).toMatch(/^\d+$/);
    }
  });

  test('PromptPay offers come from a provider with a biller id (13-digit tax id + 2-digit suffix)', () => {
    if (offer.method !== 'promptpay') return;
    expect(provider.promptPayBillerId).toMatch(/^\d{15}$/);
  });
});

test('one provider does not offer the same method twice', () => {
  for (const p of PROVIDERS) {
    const methods = p.offers.map((o) => o.method);
    expect(new Set(methods).size).toBe(methods.length);
  }
});

test('every method is served by at least one provider', () => {
  for (const name of PAYMENT_METHODS) expect(offers.some(({ offer }) => offer.method === name)).toBe(true);
});

test('test outcomes belong to test-only providers and name a hold reason and a settlement', () => {
  for (const p of PROVIDERS) {
    for (const [account, outcome] of Object.entries(p.testOutcomes ?? {})) {
      expect(p.environments).toEqual(['test']);
      expect(account).toMatch(/^\d+$/);
      expect(outcome.holdReason).toMatch(/^[a-z_]+$/);
      if (outcome.settle.status === 'failed') {
        expect(outcome.settle.failureCode).toMatch(/^[a-z_]+$/);
        expect(outcome.settle.failureMessage.length).toBeGreaterThan(0);
      }
    }
  }
});

test('localCodes lists every provider, method and bank-route code, and none is a public name', () => {
  const codes = localCodes();
  for (const p of PROVIDERS) {
    expect(codes).toContain(p.code);
    for (const o of p.offers) {
      expect(codes).toContain(o.localCode);
      for (const r of Object.values(o.banks ?? {})) expect(codes).toContain(r.localCode);
    }
  }
  const publicNames = new Set<string>([...PAYMENT_METHODS, ...Object.keys(BANKS), ...CHECKOUT_MODES]);
  for (const c of codes) expect(publicNames.has(c)).toBe(false);
});
