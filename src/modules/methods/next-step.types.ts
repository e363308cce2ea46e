/**
 * `nextStep`: the next action as a union, one object type per kind, so a client selects each
 * kind's fields with an inline fragment and every field of a kind is non-null. Each member
 * reads the same REST `next_action` object as the older `NextAction` type (deprecated).
 */
import { createUnionType, Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { BankTransferInstructionsType, QrCodeDetailsType } from './next-action.types';
import type { NextAction } from './next-action';

@ObjectType('RedirectToUrlAction', { description: 'The payer completes the payment on another page (hosted checkout, bank approval).' })
export class RedirectToUrlActionType {
  @Field(() => String, { description: 'Where to send the payer.', simple: true })
  url: string;

  @Field(() => DateTimeScalar, { name: 'expiresAt', description: 'When the action stops working.' })
  expires_at: string;
}

@ObjectType('DisplayQrCodeAction', { description: 'The payer scans a QR code with a banking app.' })
export class DisplayQrCodeActionType {
  @Field(() => QrCodeDetailsType, { name: 'displayQrCode', description: 'The QR code to show.' })
  display_qr_code: QrCodeDetailsType;

  @Field(() => DateTimeScalar, { name: 'expiresAt', description: 'When the QR code stops being accepted.' })
  expires_at: string;
}

@ObjectType('DisplayBankTransferInstructionsAction', { description: 'The payer transfers the amount to an account, quoting a reference.' })
export class DisplayBankTransferInstructionsActionType {
  @Field(() => BankTransferInstructionsType, { name: 'displayBankTransferInstructions', description: 'Where to transfer and what to quote.' })
  display_bank_transfer_instructions: BankTransferInstructionsType;

  @Field(() => DateTimeScalar, { name: 'expiresAt', description: 'When the instructions stop being accepted.' })
  expires_at: string;
}

const MEMBERS = {
  redirect_to_url: RedirectToUrlActionType,
  display_qr_code: DisplayQrCodeActionType,
  display_bank_transfer_instructions: DisplayBankTransferInstructionsActionType,
} as const;

export const NextStepUnion = createUnionType({
  name: 'NextStep',
  description: 'What the payer must do next, one type per kind (REST `next_action`, by its `type`).',
  types: () => [RedirectToUrlActionType, DisplayQrCodeActionType, DisplayBankTransferInstructionsActionType] as const,
  resolveType: (action: object) => MEMBERS[(action as NextAction).type],
});
