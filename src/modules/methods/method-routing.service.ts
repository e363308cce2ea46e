/**
 * Method discovery and routing.
 *
 * Eligibility is one filter over the catalogue's offers: provider available in the key's
 * environment, country, currency, amount within the offer's bounds, checkout mode,
 * optional provider pin, and the merchant has not disabled the method. Eligible offers
 * are grouped per (method, bank); within a group the offer with the lowest priority
 * number is the one routing uses, so discovery reports exactly the payer data that a
 * create with the same inputs will require. Provider codes, local codes and priorities
 * stay inside this module.
 */
import type { EntityManager } from 'typeorm';
import { BoundedMemo } from '../../domain/bounded-memo';
import { ApiError } from '../../domain/errors';
import type { Page } from '../../domain/listing';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { BANKS, METHODS, Offer, PAYER_FIELDS, PAYER_FIELD_PATHS, PAYMENT_METHODS, PayerField, PaymentMethodName } from './catalogue';
import { PROVIDERS } from './providers';
import type { PayerData, PaymentConnector } from './connector';
import { EligibilityCriteria, discoveryCursor, parseDiscoveryPaging, parseDiscoveryQuery } from './method-query';
import type { MethodSettings } from './method-settings.service';
import { PaymentMethodOptionWire, choiceToWire, type MethodChoice, type PaymentMethodOptionView } from './method.wire';

export type { MethodChoice } from './method.wire';
import { CONNECTORS } from './simulated.connector';
import type { ProviderDefinition } from './catalogue';
import type { Environment } from '../auth/api-key.entity';

/** A provider routing may use: its catalogue entry and its connector. */
interface Source {
  definition: ProviderDefinition;
  connector: PaymentConnector;
}

/** A real provider account's connector, as routing sees it (src/modules/providers). */
export interface AccountConnector extends PaymentConnector {
  readonly account: { id: string; updatedAt: Date };
  /** Changes whenever `definition` does (an offer read from the provider). */
  readonly definitionVersion?: number;
}

/**
 * The operator's real provider accounts (src/modules/providers/live-connectors.ts). An
 * environment with at least one active account for the merchant routes only to them.
 */
export interface AccountSource {
  active(environment: Environment, merchantId: string, em?: EntityManager): Promise<AccountConnector[]>;
  byId(id: string): Promise<AccountConnector | null>;
}

/** One provider a started payment may go to, in the order failover tries them. */
export interface StartCandidate {
  connector: PaymentConnector;
  offer: Offer;
}

/** One (method, bank) choice and the offer routing would use for it. Internal: holds routing facts. */
/** Payer data an offer needs, in PAYER_FIELDS order. */
export function requirementsOf(offer: Offer): PayerField[] {
  const needed = new Set<PayerField>(offer.payer);
  if (METHODS[offer.method].bankChoice) needed.add('bank');
  return PAYER_FIELDS.filter((f) => needed.has(f));
}

/** Reads a payer field from PayerData. */
export function payerValue(payer: PayerData, field: PayerField): string | undefined {
  return payer[field];
}

/** Distinct discovery keys kept (amounts vary freely, so the key space is not bounded by itself). */
const CHOICES_CACHED = 1_000;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class MethodRouting {
  /** eligible()'s answers by key; see there. */
  private readonly choices = new BoundedMemo<readonly MethodChoice[]>(CHOICES_CACHED);
  /** The wire records of each kept answer, made once (frozen; JSON.stringify and GraphQL only read them). */
  private readonly wires = new WeakMap<readonly MethodChoice[], readonly PaymentMethodOptionWire[]>();

  constructor(
    private readonly db: Db,
    private readonly settings: Pick<MethodSettings, 'disabledMethods'>,
    /** Whether live-mode keys may use these (simulated) connectors (SIMULATED_PROVIDERS_IN_LIVE). */
    private readonly live: boolean,
    private readonly connectors: ReadonlyMap<string, PaymentConnector> = CONNECTORS,
    /** The real provider accounts; none: the simulated providers only. */
    private readonly accounts?: AccountSource,
  ) {}

  /** Whether the scope has an active real provider account (live mode then has a provider). */
  async hasAccounts(scope: Scope, em?: EntityManager): Promise<boolean> {
    return (await this.accountSources(scope, em)).length > 0;
  }

  /**
   * The methods a live-mode payment of the merchant can take now: those its active live
   * accounts offer (the merchant's own and the platform's), or the simulated providers' when
   * SIMULATED_PROVIDERS_IN_LIVE turns them on and no account is connected. Says nothing of
   * which provider or account.
   */
  async liveMethods(merchantId: string): Promise<ReadonlySet<PaymentMethodName>> {
    const scope: Scope = { merchantId, environment: 'live' };
    const accounts = await this.accountSources(scope);
    const sources = accounts.length > 0 ? accounts : this.live ? this.simulated().filter((s) => s.definition.environments.includes('live')) : [];
    return new Set(sources.flatMap((s) => s.definition.offers.map((o) => o.method)));
  }

  /** The simulated providers, as sources. */
  private simulated(): Source[] {
    return PROVIDERS.flatMap((definition) => {
      const connector = this.connectors.get(definition.code);
      return connector ? [{ definition, connector }] : [];
    });
  }

  /** The scope's active provider accounts, as sources (empty: the simulated providers route). */
  private async accountSources(scope: Scope, em?: EntityManager): Promise<Source[]> {
    if (!this.accounts) return [];
    return (await this.accounts.active(scope.environment, scope.merchantId, em)).map((connector) => ({ definition: connector.definition, connector }));
  }

  /**
   * The providers a routed payment may start with, in the order failover tries them: the
   * routed one first, then (real accounts only) every other active account of the scope with
   * an offer for the same method, bank, currency and amount, by priority.
   */
  async startCandidates(
    scope: Scope,
    routed: { provider: string; method: string; bank: string | null; amount: bigint; currency: string },
  ): Promise<StartCandidate[]> {
    const fits = (o: Offer) =>
      o.method === routed.method &&
      o.currencies.includes(routed.currency) &&
      routed.amount >= o.minAmount &&
      routed.amount <= o.maxAmount &&
      (routed.bank === null || o.banks?.[routed.bank] !== undefined);
    const simulated = this.connectors.get(routed.provider);
    if (simulated) {
      const offer = simulated.definition.offers.find((o) => o.method === routed.method);
      if (!offer) throw new Error(`provider ${routed.provider} has no ${routed.method} offer`);
      return [{ connector: simulated, offer }];
    }
    const first = this.accounts ? await this.accounts.byId(routed.provider) : null;
    if (!first) throw new Error(`provider ${routed.provider} is unknown`);
    const out: StartCandidate[] = [];
    const firstOffer = first.definition.offers.find(fits);
    if (firstOffer) out.push({ connector: first, offer: firstOffer });
    const others = (await this.accountSources(scope))
      .filter((s) => s.connector.code !== first.code)
      .flatMap((s, order) => s.definition.offers.filter(fits).map((offer) => ({ connector: s.connector, offer, order })))
      .sort((a, b) => a.offer.priority - b.offer.priority || a.order - b.order);
    for (const o of others) out.push({ connector: o.connector, offer: o.offer });
    return out;
  }

  // ---- discovery ----

  /** The whole discovery result (REST GET /v1/payment_method_options: one page, no paging parameters). */
  async discover(scope: Scope, query: Record<string, unknown>): Promise<readonly PaymentMethodOptionWire[]> {
    const criteria = parseDiscoveryQuery(query);
    return this.wireOf(await this.db.read((em) => this.eligible(em, scope, criteria)));
  }

  private wireOf(choices: readonly MethodChoice[]): readonly PaymentMethodOptionWire[] {
    let wire = this.wires.get(choices);
    if (!wire) {
      wire = Object.freeze(choices.map((c) => deepFreeze(choiceToWire(c))));
      this.wires.set(choices, wire);
    }
    return wire;
  }

  /**
   * One page of the discovery result (GraphQL paymentMethodOptions). Discovery is one short
   * list; `first`/`after` page through it in memory so it is a connection like every list.
   * Bad arguments are validation errors with param `first` / `after`.
   */
  async discoverPage(
    scope: Scope,
    query: Record<string, unknown>,
    paging: { first?: number | null; after?: string | null },
  ): Promise<Page<PaymentMethodOptionView>> {
    const criteria = parseDiscoveryQuery(query);
    const { start, first } = parseDiscoveryPaging(paging.first, paging.after);
    const choices = await this.db.read((em) => this.eligible(em, scope, criteria));
    const all = this.wireOf(choices);
    const data = all.slice(start, start + first).map((wire, i) => ({ ...wire, bounds_currency: choices[start + i].boundsCurrency }));
    const cursorAt = (i: number) => discoveryCursor(start + i);
    const hasMore = start + first < all.length;
    return { data, hasMore, nextCursor: hasMore ? cursorAt(data.length - 1) : null, cursorAt, total: { count: all.length, capped: false } };
  }

  /**
   * Every eligible (method, bank), in catalogue order, each with the offer routing would use.
   * The answer is a pure function of the environment, the criteria and the disabled methods
   * (the catalogue and the connectors are fixed for the process), so it is computed once per
   * such key and kept (read-only; at most CHOICES_CACHED keys, then the cache starts afresh).
   */
  async eligible(em: EntityManager, scope: Scope, criteria: EligibilityCriteria): Promise<readonly MethodChoice[]> {
    const disabled = await this.settings.disabledMethods(em, scope);
    const accounts = await this.accountSources(scope, em);
    if (accounts.length > 0) {
      // The scope's accounts (and their versions) are part of the key: a connected or disabled account changes the answer.
      const which = accounts
        .map(
          (a) =>
            `${a.connector.code}@${(a.connector as AccountConnector).account.updatedAt.getTime()}.${(a.connector as AccountConnector).definitionVersion ?? 0}`,
        )
        .join(',');
      const key = `accounts:${which}|${criteria.amount ?? ''}|${criteria.currency ?? ''}|${criteria.country ?? ''}|${criteria.checkoutMode}|${criteria.provider ?? ''}|${[...disabled].sort().join(',')}`;
      return this.choices.get(key, () => Object.freeze(this.compute(accounts, criteria, disabled)));
    }
    const key = `${scope.environment}|${criteria.amount ?? ''}|${criteria.currency ?? ''}|${criteria.country ?? ''}|${criteria.checkoutMode}|${criteria.provider ?? ''}|${[...disabled].sort().join(',')}`;
    const environment = scope.environment;
    const simulated = environment === 'live' && !this.live ? [] : this.simulated().filter((s) => s.definition.environments.includes(environment));
    return this.choices.get(key, () => Object.freeze(this.compute(simulated, criteria, disabled)));
  }

  private compute(sources: readonly Source[], criteria: EligibilityCriteria, disabled: ReadonlySet<string>): MethodChoice[] {
    const groups = new Map<
      string,
      { method: PaymentMethodName; bank: string | null; offers: { offer: Offer; connector: PaymentConnector; order: number }[] }
    >();
    let order = 0;
    for (const { definition: provider, connector } of sources) {
      if (criteria.provider !== undefined && criteria.provider !== (provider.pin ?? provider.code)) continue;
      for (const offer of provider.offers) {
        order++;
        if (disabled.has(offer.method)) continue;
        if (criteria.country !== undefined && !offer.countries.includes(criteria.country)) continue;
        if (criteria.currency !== undefined && !offer.currencies.includes(criteria.currency)) continue;
        if (criteria.amount !== undefined && (criteria.amount < offer.minAmount || criteria.amount > offer.maxAmount)) continue;
        if (!offer.checkoutModes.includes(criteria.checkoutMode)) continue;
        const banks = METHODS[offer.method].bankChoice ? Object.keys(offer.banks ?? {}) : [null];
        for (const bank of banks) {
          if (bank !== null && criteria.country !== undefined && BANKS[bank]?.country !== criteria.country) continue;
          const key = `${offer.method}/${bank ?? ''}`;
          const group = groups.get(key) ?? { method: offer.method, bank, offers: [] };
          group.offers.push({ offer, connector, order });
          groups.set(key, group);
        }
      }
    }
    const methodRank = (m: string) => PAYMENT_METHODS.indexOf(m as PaymentMethodName);
    const bankRank = (b: string | null) => (b === null ? -1 : Object.keys(BANKS).indexOf(b));
    return [...groups.values()]
      .sort((a, b) => methodRank(a.method) - methodRank(b.method) || bankRank(a.bank) - bankRank(b.bank))
      .map((g) => {
        const ranked = [...g.offers].sort((a, b) => a.offer.priority - b.offer.priority || a.order - b.order);
        const top = ranked[0];
        const currencies = new Set(ranked.flatMap((r) => r.offer.currencies));
        const single = currencies.size === 1;
        return {
          method: g.method,
          bank: g.bank,
          offer: top.offer,
          connector: top.connector,
          minAmount: single ? ranked.reduce((min, r) => (r.offer.minAmount < min ? r.offer.minAmount : min), top.offer.minAmount) : null,
          maxAmount: single ? ranked.reduce((max, r) => (r.offer.maxAmount > max ? r.offer.maxAmount : max), top.offer.maxAmount) : null,
          boundsCurrency: single ? [...currencies][0] : null,
          requirements: requirementsOf(top.offer),
        };
      });
  }

  // ---- routing ----

  /**
   * Picks the (method, bank) and provider for a payment, or explains why none fits:
   * 422 payment_method_unavailable for a named method or bank that is not eligible, 400
   * naming the create-request path of the first missing payer field.
   */
  async route(
    em: EntityManager,
    scope: Scope,
    criteria: EligibilityCriteria & { amount: bigint; currency: string; country: string },
    wanted: { method?: string; bank?: string; payer: PayerData },
  ): Promise<MethodChoice> {
    const choices = await this.eligible(em, scope, criteria);
    const context = `${criteria.amount.toString(10)} ${criteria.currency} in ${criteria.country} (${criteria.checkoutMode} checkout)`;
    if (wanted.method === undefined) {
      if (choices.length === 0) {
        throw new ApiError('payment_method_unavailable', `No payment method is available for ${context}. GET /v1/payment_method_options lists what is.`);
      }
      const fits = choices.filter((c) => (wanted.bank === undefined ? true : c.bank === wanted.bank));
      const ready = fits.find((c) => missingField(c, wanted.payer) === undefined);
      if (ready) return ready;
      if (fits.length === 0) {
        throw new ApiError(
          'payment_method_unavailable',
          `No payment method with bank ${wanted.bank} is available for ${context}.`,
          'payment_method_options.bank',
        );
      }
      throw missingFieldError(fits[0], missingField(fits[0], wanted.payer) as PayerField, true);
    }

    const method = wanted.method as PaymentMethodName;
    const ofMethod = choices.filter((c) => c.method === method);
    if (ofMethod.length === 0) {
      const known = (PAYMENT_METHODS as readonly string[]).includes(wanted.method);
      throw new ApiError(
        'payment_method_unavailable',
        known
          ? `payment_method ${wanted.method} is not available for ${context}, or it is disabled for this merchant.`
          : `payment_method ${wanted.method} is not a payment method of this service. GET /v1/payment_method_options lists the available ones.`,
        'payment_method',
      );
    }
    let choice: MethodChoice | undefined;
    if (METHODS[method].bankChoice) {
      const banks = ofMethod.map((c) => c.bank).join(', ');
      if (wanted.bank === undefined) {
        throw ApiError.validation('payment_method_options.bank', `payment_method_options.bank is required for ${method}; available banks: ${banks}.`);
      }
      choice = ofMethod.find((c) => c.bank === wanted.bank);
      if (!choice) {
        throw new ApiError(
          'payment_method_unavailable',
          `Bank ${wanted.bank} is not available for ${method} for ${context}; available banks: ${banks}.`,
          'payment_method_options.bank',
        );
      }
    } else {
      if (wanted.bank !== undefined) {
        throw ApiError.validation('payment_method_options.bank', `${method} has no bank choice; omit payment_method_options.bank.`);
      }
      choice = ofMethod[0];
    }
    const missing = missingField(choice, wanted.payer);
    if (missing) throw missingFieldError(choice, missing, false);
    return choice;
  }
}

// ---- missing payer data ----

/** The first payer field the choice needs that the payer data lacks. */
function missingField(choice: MethodChoice, payer: PayerData): PayerField | undefined {
  return choice.requirements.find((f) => !payerValue(payer, f));
}

/** 400 naming the create-request path of the missing field; `picked` when the service chose the method. */
function missingFieldError(choice: MethodChoice, field: PayerField, picked: boolean): ApiError {
  const path = PAYER_FIELD_PATHS[field];
  const what = choice.bank ? `${choice.method} with bank ${choice.bank}` : choice.method;
  return ApiError.validation(
    path,
    `${path} is required for ${what}${picked ? ' (the method the service picked, as payment_method was omitted)' : ''}; discovery reports it as options.payer.${field}.`,
  );
}
