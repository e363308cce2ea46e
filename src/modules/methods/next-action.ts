/**
 * `next_action`: what the payer must do, and its schema (component `NextAction`, carried by
 * payment and topup intents). `type` and `expires_at` are always present;
 * `redirect_to_url` carries `url` flat (as payments-api.md shows); the other types carry
 * their details in an object named after the type, as Stripe does. The TypeScript types are
 * read off the schema.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AmountText, Instant } from '../../domain/fields';

const RedirectToUrl = Type.Object(
  {
    type: Type.Literal('redirect_to_url'),
    url: Type.String({ format: 'uri', description: 'Where to send the payer.' }),
    expires_at: Instant,
  },
  { additionalProperties: false },
);

const QrCodeDetails = Type.Object(
  {
    data: Type.String({ description: 'The EMVCo payload the QR code encodes.' }),
    image_url_svg: Type.String({ description: 'The QR code as an SVG data: URL.' }),
  },
  { additionalProperties: false },
);
export type QrCodeDetails = Static<typeof QrCodeDetails>;

const DisplayQrCode = Type.Object(
  {
    type: Type.Literal('display_qr_code'),
    expires_at: Instant,
    display_qr_code: QrCodeDetails,
  },
  { additionalProperties: false },
);

const BankTransferDetails = Type.Object(
  {
    bank: Type.String({ description: 'Provider-neutral bank code, e.g. KBANK.' }),
    bank_name: Type.String(),
    account_number: Type.String(),
    account_name: Type.String(),
    reference: Type.String({ description: 'The reference the payer must quote so the transfer is matched.' }),
    amount: AmountText,
    currency: Type.String(),
  },
  { additionalProperties: false },
);
export type BankTransferDetails = Static<typeof BankTransferDetails>;

const DisplayBankTransferInstructions = Type.Object(
  {
    type: Type.Literal('display_bank_transfer_instructions'),
    expires_at: Instant,
    display_bank_transfer_instructions: BankTransferDetails,
  },
  { additionalProperties: false },
);

/** The branches exclude each other (`type`), hence oneOf rather than TypeBox's anyOf union. */
const NEXT_ACTION_SHAPES = [RedirectToUrl, DisplayQrCode, DisplayBankTransferInstructions] as const;

export type NextAction = Static<(typeof NEXT_ACTION_SHAPES)[number]>;
export type NextActionType = NextAction['type'];

/** The `type` of each branch, in the schema's order. */
export const NEXT_ACTION_TYPES: readonly NextActionType[] = NEXT_ACTION_SHAPES.map((shape) => shape.properties.type.const);

export const NextActionSchema = Type.Unsafe<NextAction>({
  $id: 'NextAction',
  description: 'What the payer must do.',
  oneOf: NEXT_ACTION_SHAPES,
});
