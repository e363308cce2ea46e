/**
 * The banks the service knows, by provider-neutral code: the one list that payment method
 * discovery (a bank choice), checkout pages and payouts (a recipient's `bank_code`) share.
 * A payout to a code not listed here is refused at create (400 naming the field), and a
 * batch row with one is an invalid row.
 */
export interface BankDefinition {
  code: string;
  name: string;
  country: string;
}

export const BANKS: Readonly<Record<string, BankDefinition>> = {
  KBANK: { code: 'KBANK', name: 'Kasikornbank', country: 'TH' },
  SCB: { code: 'SCB', name: 'Siam Commercial Bank', country: 'TH' },
  BBL: { code: 'BBL', name: 'Bangkok Bank', country: 'TH' },
  KTB: { code: 'KTB', name: 'Krungthai Bank', country: 'TH' },
  BAY: { code: 'BAY', name: 'Krungsri (Bank of Ayudhya)', country: 'TH' },
  BCA: { code: 'BCA', name: 'Bank Central Asia', country: 'ID' },
  BNI: { code: 'BNI', name: 'Bank Negara Indonesia', country: 'ID' },
  BRI: { code: 'BRI', name: 'Bank Rakyat Indonesia', country: 'ID' },
  MANDIRI: { code: 'MANDIRI', name: 'Bank Mandiri', country: 'ID' },
};

/** The supported codes, in the list's order. */
export const BANK_CODES: readonly string[] = Object.keys(BANKS);

/** Whether `code` (already trimmed and upper-cased) is a supported bank: an own key of BANKS. */
export function isSupportedBank(code: string): boolean {
  return Object.hasOwn(BANKS, code);
}
