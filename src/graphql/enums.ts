/** GraphQL enums: UPPER_CASE names whose internal values are the REST wire strings. */
import { registerEnumType } from 'type-graphql';

export enum EnvironmentEnum {
  TEST = 'test',
  LIVE = 'live',
}
registerEnumType(EnvironmentEnum, { name: 'Environment', description: 'Set by the API key prefix; never by input.' });

export enum PayoutIntentStatusEnum {
  REQUIRES_APPROVAL = 'requires_approval',
  PROCESSING = 'processing',
  SUCCEEDED = 'succeeded',
  FAILED = 'failed',
  CANCELLED = 'cancelled',
}
registerEnumType(PayoutIntentStatusEnum, { name: 'PayoutIntentStatus' });

export enum RecipientTypeEnum {
  BANK_ACCOUNT = 'bank_account',
}
registerEnumType(RecipientTypeEnum, { name: 'RecipientType' });

export enum TopupIntentStatusEnum {
  REQUIRES_ACTION = 'requires_action',
  SUCCEEDED = 'succeeded',
  FAILED = 'failed',
  EXPIRED = 'expired',
}
registerEnumType(TopupIntentStatusEnum, { name: 'TopupIntentStatus' });

export enum PaymentIntentStatusEnum {
  REQUIRES_ACTION = 'requires_action',
  PROCESSING = 'processing',
  SUCCEEDED = 'succeeded',
  FAILED = 'failed',
  CANCELLED = 'cancelled',
  EXPIRED = 'expired',
}
registerEnumType(PaymentIntentStatusEnum, { name: 'PaymentIntentStatus' });

export enum CheckoutModeEnum {
  DIRECT = 'direct',
  HOSTED = 'hosted',
}
registerEnumType(CheckoutModeEnum, { name: 'CheckoutMode', description: 'DIRECT (default): the merchant names the method or the service picks one. HOSTED: the payer chooses on the hosted page.' });
