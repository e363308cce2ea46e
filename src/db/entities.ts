import { ApiKey } from '../modules/auth/api-key.entity';
import { Merchant } from '../modules/auth/merchant.entity';
import { EventRecord, EventSequence } from '../modules/events/event.entity';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../modules/webhooks/webhook.entity';
import { IdempotencyKey } from '../modules/idempotency/idempotency-key.entity';
import { PayoutIntent } from '../modules/payouts/payout.entity';
import { Balance, LedgerEntry } from '../modules/balances/balance.entity';
import { TopupIntent } from '../modules/topups/topup.entity';
import { PaymentIntent } from '../modules/payments/payment.entity';
import { PaymentMethodSetting } from '../modules/methods/method-setting.entity';
import { AuditEntry } from '../modules/audit/audit.entity';

export const ENTITIES = [Merchant, ApiKey, IdempotencyKey, PayoutIntent, EventRecord, EventSequence, WebhookEndpoint, WebhookDelivery, WebhookAttempt, Balance, LedgerEntry, TopupIntent, PaymentIntent, PaymentMethodSetting, AuditEntry];
