/**
 * GraphQL view of `next_action` (shared by payment and topup intents). Like every output
 * type here it reads the REST wire object: camelCase schema names over snake_case props.
 */
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { money, MoneyType, type Money } from '../../graphql/money';

export enum NextActionTypeEnum {
  REDIRECT_TO_URL = 'redirect_to_url',
  DISPLAY_QR_CODE = 'display_qr_code',
  DISPLAY_BANK_TRANSFER_INSTRUCTIONS = 'display_bank_transfer_instructions',
}
registerEnumType(NextActionTypeEnum, {
  name: 'NextActionType',
  description: 'The kind of a next action (REST next_action.type).',
  valuesConfig: {
    REDIRECT_TO_URL: { description: 'Send the payer to a URL.' },
    DISPLAY_QR_CODE: { description: 'Show the payer a QR code.' },
    DISPLAY_BANK_TRANSFER_INSTRUCTIONS: { description: 'Show the payer where to transfer the amount.' },
  },
});

@ObjectType('QrCodeDetails', { description: 'A QR code the payer scans.' })
export class QrCodeDetailsType {
  @Field(() => String, { description: 'The EMVCo payload the QR code encodes.', simple: true })
  data: string;

  @Field(() => String, { name: 'imageUrlSvg', description: 'The QR code as an SVG data: URL.' })
  image_url_svg: string;
}

@ObjectType('BankTransferInstructions', { description: 'Where to transfer the amount and what reference to quote.' })
export class BankTransferInstructionsType {
  @Field(() => String, { description: 'Provider-neutral bank code of the receiving account, e.g. KBANK.', simple: true })
  bank: string;

  @Field(() => String, { description: "The receiving bank's name.", name: 'bankName' })
  bank_name: string;

  @Field(() => String, { description: 'The receiving account number.', name: 'accountNumber' })
  account_number: string;

  @Field(() => String, { description: "The receiving account's name.", name: 'accountName' })
  account_name: string;

  @Field(() => String, { description: 'The reference the payer must quote so the transfer is matched.', simple: true })
  reference: string;

  @Field(() => String, { description: 'The amount to transfer, in minor units.', simple: true })
  amount: string;

  @Field(() => String, { description: 'The currency of the transfer.', simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }
}

@ObjectType('NextAction', { description: 'What the payer must do next, one object with a branch per kind (deprecated: see NextStep).' })
export class NextActionType {
  @Field(() => NextActionTypeEnum, { description: 'The kind of action.', simple: true })
  type: NextActionTypeEnum;

  @Field(() => String, { nullable: true, description: 'For REDIRECT_TO_URL: where to send the payer.', simple: true })
  url?: string;

  @Field(() => DateTimeScalar, { description: 'When the action stops working.', name: 'expiresAt' })
  expires_at: string;

  @Field(() => QrCodeDetailsType, { description: 'For DISPLAY_QR_CODE: the QR code.', name: 'displayQrCode', nullable: true })
  display_qr_code?: QrCodeDetailsType;

  @Field(() => BankTransferInstructionsType, {
    description: 'For DISPLAY_BANK_TRANSFER_INSTRUCTIONS: where to transfer.',
    name: 'displayBankTransferInstructions',
    nullable: true,
  })
  display_bank_transfer_instructions?: BankTransferInstructionsType;
}
