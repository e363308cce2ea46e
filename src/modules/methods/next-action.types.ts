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
registerEnumType(NextActionTypeEnum, { name: 'NextActionType' });

@ObjectType('QrCodeDetails')
export class QrCodeDetailsType {
  @Field(() => String, { description: 'The EMVCo payload the QR code encodes.', simple: true })
  data: string;

  @Field(() => String, { name: 'imageUrlSvg', description: 'The QR code as an SVG data: URL.' })
  image_url_svg: string;
}

@ObjectType('BankTransferInstructions')
export class BankTransferInstructionsType {
  @Field(() => String, { simple: true })
  bank: string;

  @Field(() => String, { name: 'bankName' })
  bank_name: string;

  @Field(() => String, { name: 'accountNumber' })
  account_number: string;

  @Field(() => String, { name: 'accountName' })
  account_name: string;

  @Field(() => String, { simple: true })
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

@ObjectType('NextAction')
export class NextActionType {
  @Field(() => NextActionTypeEnum, { simple: true })
  type: NextActionTypeEnum;

  @Field(() => String, { nullable: true, description: 'For REDIRECT_TO_URL: where to send the payer.', simple: true })
  url?: string;

  @Field(() => DateTimeScalar, { name: 'expiresAt' })
  expires_at: string;

  @Field(() => QrCodeDetailsType, { name: 'displayQrCode', nullable: true })
  display_qr_code?: QrCodeDetailsType;

  @Field(() => BankTransferInstructionsType, { name: 'displayBankTransferInstructions', nullable: true })
  display_bank_transfer_instructions?: BankTransferInstructionsType;
}
