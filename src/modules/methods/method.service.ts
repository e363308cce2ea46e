/**
 * Method discovery, routing and the merchant's method settings.
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
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { parseAmount } from '../../domain/money';
import type { Scope } from '../../domain/scope';
import { COUNTRY, CURRENCY, FieldReader } from '../../domain/validation';
import type { Db } from '../../db/db';
import type { RequestContext } from '../auth/request-context';
import type { ApiResult, IdempotencyService } from '../idempotency/idempotency.service';
import {
  BANKS, CHECKOUT_MODES, CheckoutMode, METHODS, Offer, PAYER_FIELDS, PAYER_FIELD_PATHS, PAYMENT_METHODS, PayerField, PaymentMethodName, PROVIDERS,
} from './catalogue';
import type { PayerData, PaymentConnector } from './connector';
import { PaymentMethodSetting } from './method-setting.entity';
import type { NextActionType } from './next-action';
import { CONNECTORS } from './simulated.connector';

export interface EligibilityCriteria {
  amount?: bigint;
  currency?: string;
  country?: string;
  checkoutMode: CheckoutMode;
  /** Strict pin: only this provider's offers. */
  provider?: string;
}

/** One (method, bank) choice and the offer routing would use for it. Internal: holds routing facts. */
export interface MethodChoice {
  method: PaymentMethodName;
  bank: string | null;
  offer: Offer;
  connector: PaymentConnector;
  /** Bounds over every eligible offer of the group (null when they span currencies). */
  minAmount: bigint | null;
  maxAmount: bigint | null;
  /** Payer data the routed offer needs, in PAYER_FIELDS order. */
  requirements: PayerField[];
}

export interface PaymentMethodOptionWire {
  object: 'payment_method_option';
  payment_method: string;
  bank: string | null;
  display_name: string;
  next_action_type: NextActionType | null;
  min_amount: string | null;
  max_amount: string | null;
  options: { payer: Partial<Record<PayerField, { required: true }>> };
}

export interface PaymentMethodSettingWire {
  object: 'payment_method_setting';
  payment_method: string;
  display_name: string;
  enabled: boolean;
  updated_at: string | null;
}

const DISCOVERY_PARAMS = new Set(['amount', 'currency', 'country', 'checkout_mode', 'provider']);
/** Accepted and ignored: the API key alone decides the environment. */
const IGNORED_PARAMS = new Set(['environment']);
const PROVIDER_PIN = /^[a-z0-9_-]{1,64}$/;

export function displayName(method: PaymentMethodName, bank: string | null): string {
  const name = METHODS[method].displayName;
  return bank ? `${name} - ${BANKS[bank]?.name ?? bank}` : name;
}

export function requirementsOf(offer: Offer): PayerField[] {
  const needed = new Set<PayerField>(offer.payer);
  if (METHODS[offer.method].bankChoice) needed.add('bank');
  return PAYER_FIELDS.filter((f) => needed.has(f));
}

export function choiceToWire(c: MethodChoice): PaymentMethodOptionWire {
  return {
    object: 'payment_method_option',
    payment_method: c.method,
    bank: c.bank,
    display_name: displayName(c.method, c.bank),
    next_action_type: METHODS[c.method].nextActionType,
    min_amount: c.minAmount === null ? null : c.minAmount.toString(10),
    max_amount: c.maxAmount === null ? null : c.maxAmount.toString(10),
    options: { payer: Object.fromEntries(c.requirements.map((f) => [f, { required: true as const }])) },
  };
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ApiError.validation(name, `${name} must be given once.`);
  return value;
}

export function parseCheckoutMode(value: string, param: string): CheckoutMode {
  const mode = value.trim().toLowerCase();
  if (!(CHECKOUT_MODES as readonly string[]).includes(mode)) throw ApiError.validation(param, `${param} must be one of: ${CHECKOUT_MODES.join(', ')}.`);
  return mode as CheckoutMode;
}

/** Query of GET /v1/payment_method_options (and the GraphQL arguments mapped onto it). */
export function parseDiscoveryQuery(query: Record<string, unknown>): EligibilityCriteria {
  for (const key of Object.keys(query)) {
    if (!DISCOVERY_PARAMS.has(key) && !IGNORED_PARAMS.has(key)) throw ApiError.validation(key, `Unknown query parameter ${key}.`);
  }
  const criteria: EligibilityCriteria = { checkoutMode: 'direct' };
  const amount = single(query, 'amount');
  if (amount !== undefined) criteria.amount = parseAmount(amount);
  const currency = single(query, 'currency');
  if (currency !== undefined) {
    criteria.currency = currency.trim().toUpperCase();
    if (!CURRENCY.test(criteria.currency)) throw ApiError.validation('currency', 'currency must be 3 to 6 letters, such as THB.');
  }
  if (criteria.amount !== undefined && criteria.currency === undefined) {
    throw ApiError.validation('currency', 'currency is required when amount is given: amounts are in minor units of a currency.');
  }
  const country = single(query, 'country');
  if (country !== undefined) {
    criteria.country = country.trim().toUpperCase();
    if (!COUNTRY.test(criteria.country)) throw ApiError.validation('country', 'country must be an ISO 3166-1 alpha-2 code such as TH.');
  }
  const mode = single(query, 'checkout_mode');
  if (mode !== undefined) criteria.checkoutMode = parseCheckoutMode(mode, 'checkout_mode');
  const provider = single(query, 'provider');
  if (provider !== undefined) {
    criteria.provider = provider.trim().toLowerCase();
    if (!PROVIDER_PIN.test(criteria.provider)) throw ApiError.validation('provider', 'provider must be 1 to 64 letters, digits, "-" or "_".');
  }
  return criteria;
}

/** Reads a payer field from PayerData. */
export function payerValue(payer: PayerData, field: PayerField): string | undefined {
  return payer[field];
}

export class MethodService {
  constructor(
    private readonly db: Db,
    private readonly idempotency: IdempotencyService,
    private readonly connectors: ReadonlyMap<string, PaymentConnector> = CONNECTORS,
  ) {}

  // ---- discovery ----

  async discover(scope: Scope, query: Record<string, unknown>): Promise<PaymentMethodOptionWire[]> {
    const criteria = parseDiscoveryQuery(query);
    const choices = await this.db.read((em) => this.eligible(em, scope, criteria));
    return choices.map(choiceToWire);
  }

  /** Every eligible (method, bank), in catalogue order, each with the offer routing would use. */
  async eligible(em: EntityManager, scope: Scope, criteria: EligibilityCriteria): Promise<MethodChoice[]> {
    const disabled = await this.disabledMethods(em, scope);
    const groups = new Map<string, { method: PaymentMethodName; bank: string | null; offers: { offer: Offer; connector: PaymentConnector; order: number }[] }>();
    let order = 0;
    for (const provider of PROVIDERS) {
      const connector = this.connectors.get(provider.code);
      if (!connector || !provider.environments.includes(scope.environment)) continue;
      if (criteria.provider !== undefined && criteria.provider !== provider.code) continue;
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
      const ready = fits.find((c) => this.missing(c, wanted.payer) === undefined);
      if (ready) return ready;
      if (fits.length === 0) {
        throw new ApiError('payment_method_unavailable', `No payment method with bank ${wanted.bank} is available for ${context}.`, 'payment_method_options.bank');
      }
      throw this.missingError(fits[0], this.missing(fits[0], wanted.payer) as PayerField, true);
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
        throw new ApiError('payment_method_unavailable', `Bank ${wanted.bank} is not available for ${method} for ${context}; available banks: ${banks}.`, 'payment_method_options.bank');
      }
    } else {
      if (wanted.bank !== undefined) {
        throw ApiError.validation('payment_method_options.bank', `${method} has no bank choice; omit payment_method_options.bank.`);
      }
      choice = ofMethod[0];
    }
    const missing = this.missing(choice, wanted.payer);
    if (missing) throw this.missingError(choice, missing, false);
    return choice;
  }

  private missing(choice: MethodChoice, payer: PayerData): PayerField | undefined {
    return choice.requirements.find((f) => !payerValue(payer, f));
  }

  private missingError(choice: MethodChoice, field: PayerField, picked: boolean): ApiError {
    const path = PAYER_FIELD_PATHS[field];
    const what = choice.bank ? `${choice.method} with bank ${choice.bank}` : choice.method;
    return ApiError.validation(
      path,
      `${path} is required for ${what}${picked ? ' (the method the service picked, as payment_method was omitted)' : ''}; discovery reports it as options.payer.${field}.`,
    );
  }

  // ---- merchant settings ----

  async disabledMethods(em: EntityManager, scope: Scope): Promise<Set<string>> {
    const rows = await em.createQueryBuilder(PaymentMethodSetting, 's')
      .where('s.merchant_id = :merchantId AND s.environment = :environment AND s.enabled = 0', { merchantId: scope.merchantId, environment: scope.environment })
      .getMany();
    return new Set(rows.map((r) => r.paymentMethod));
  }

  async listSettings(scope: Scope): Promise<PaymentMethodSettingWire[]> {
    const rows = await this.db.read((em) =>
      em.createQueryBuilder(PaymentMethodSetting, 's')
        .where('s.merchant_id = :merchantId AND s.environment = :environment', { merchantId: scope.merchantId, environment: scope.environment })
        .getMany(),
    );
    const byMethod = new Map(rows.map((r) => [r.paymentMethod, r]));
    return PAYMENT_METHODS.map((m) => settingToWire(m, byMethod.get(m)));
  }

  /** Enables or disables one method for the caller's merchant and environment. */
  updateSetting(ctx: RequestContext, method: string, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    return this.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/payment_method_settings/:payment_method', raw,
      parse: (r) => {
        if (!(PAYMENT_METHODS as readonly string[]).includes(method)) throw new ApiError('not_found', `No such payment method: ${method}.`);
        const body = FieldReader.body(r);
        const enabled = body.raw('enabled');
        if (typeof enabled !== 'boolean') throw ApiError.validation('enabled', 'enabled is required and must be true or false.');
        body.end();
        return { payment_method: method as PaymentMethodName, enabled };
      },
      execute: async (em, input) => {
        const now = new Date();
        const find = () => this.db.forUpdate(
          em.createQueryBuilder(PaymentMethodSetting, 's').where('s.merchant_id = :merchantId AND s.environment = :environment AND s.payment_method = :method', {
            merchantId: ctx.merchantId, environment: ctx.environment, method: input.payment_method,
          }),
        ).getOne();
        let row = await find();
        if (!row) {
          try {
            row = Object.assign(new PaymentMethodSetting(), {
              id: newId('paymentMethodSetting', now.getTime()), merchantId: ctx.merchantId, environment: ctx.environment,
              paymentMethod: input.payment_method, enabled: input.enabled, updatedAt: now,
            });
            await em.getRepository(PaymentMethodSetting).insert(row as never);
            return { status: 200, body: settingToWire(input.payment_method, row) };
          } catch (err) {
            if (!this.db.isUniqueViolation(err)) throw err;
            row = await find();
            if (!row) throw err;
          }
        }
        await em.createQueryBuilder().update(PaymentMethodSetting).set({ enabled: input.enabled, updatedAt: now } as never)
          .where('id = :id AND merchant_id = :merchantId AND environment = :environment', { id: row.id, merchantId: ctx.merchantId, environment: ctx.environment })
          .execute();
        Object.assign(row, { enabled: input.enabled, updatedAt: now });
        return { status: 200, body: settingToWire(input.payment_method, row) };
      },
    });
  }
}

function settingToWire(method: PaymentMethodName, row: PaymentMethodSetting | undefined): PaymentMethodSettingWire {
  return {
    object: 'payment_method_setting',
    payment_method: method,
    display_name: METHODS[method].displayName,
    enabled: row ? row.enabled : true,
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}
