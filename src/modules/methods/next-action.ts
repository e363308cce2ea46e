/**
 * `next_action`: what the payer must do. `type` and `expires_at` are always present;
 * `redirect_to_url` carries `url` flat (as payments-api.md shows); the other types carry
 * their details in an object named after the type, as Stripe does.
 */
export interface BankTransferDetails {
  /** Provider-neutral bank code, e.g. `KBANK`. */
  bank: string;
  bank_name: string;
  account_number: string;
  account_name: string;
  /** The reference the payer must quote so the transfer is matched. */
  reference: string;
  amount: string;
  currency: string;
}

export interface QrCodeDetails {
  /** The EMVCo payload string the QR code encodes. */
  data: string;
  /** The QR code as an image (data: URL, SVG). */
  image_url_svg: string;
}

export type NextAction =
  | { type: 'redirect_to_url'; url: string; expires_at: string }
  | { type: 'display_qr_code'; expires_at: string; display_qr_code: QrCodeDetails }
  | { type: 'display_bank_transfer_instructions'; expires_at: string; display_bank_transfer_instructions: BankTransferDetails };

export type NextActionType = NextAction['type'];
