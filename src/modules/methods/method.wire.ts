/**
 * Method discovery and method settings as both surfaces show them (REST bodies; GraphQL maps
 * them in method.types.ts). Their types are read off the schemas in method.schemas.ts.
 */
import { BANKS, METHODS, PaymentMethodName } from './catalogue';
import type { PaymentMethodSetting } from './method-setting.entity';
import type { Offer, PayerField } from './catalogue';
import type { PaymentConnector } from './connector';
import type { PaymentMethodOptionWire, PaymentMethodSettingWire } from './method.schemas';
import { isoInstant } from '../../domain/instant';

export type { PaymentMethodOptionWire, PaymentMethodSettingWire };

export function displayName(method: PaymentMethodName, bank: string | null): string {
  const name = METHODS[method].displayName;
  return bank ? `${name} - ${BANKS[bank]?.name ?? bank}` : name;
}

/** One eligible (method, bank) of a discovery answer, with the offer that routes it. */
export interface MethodChoice {
  method: PaymentMethodName;
  bank: string | null;
  offer: Offer;
  connector: PaymentConnector;
  /** Bounds over every eligible offer of the group (null when they span currencies). */
  minAmount: bigint | null;
  maxAmount: bigint | null;
  /** The one currency of the group's offers, which the bounds are in (null when they span currencies). */
  boundsCurrency: string | null;
  /** Payer data the routed offer needs, in PAYER_FIELDS order. */
  requirements: PayerField[];
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

/** A discovery option as GraphQL reads it: the wire record and the currency of its bounds (for `minAmountMoney`). */
export type PaymentMethodOptionView = PaymentMethodOptionWire & { bounds_currency: string | null };

export function settingToWire(method: PaymentMethodName, row: PaymentMethodSetting | undefined): PaymentMethodSettingWire {
  return {
    object: 'payment_method_setting',
    payment_method: method,
    display_name: METHODS[method].displayName,
    enabled: row ? row.enabled : true,
    updated_at: row ? isoInstant(row.updatedAt) : null,
  };
}
