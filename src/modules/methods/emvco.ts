/**
 * EMVCo merchant-presented QR payloads (the format of Thai PromptPay QR, "Thai QR Payment").
 * Each field is ID (2 digits) + length (2 digits) + value; the payload ends with field 63,
 * a CRC16-CCITT (polynomial 0x1021, initial value 0xFFFF) over everything before it,
 * including the "6304" of the CRC field itself, in four upper-case hex digits.
 */

export function crc16ccitt(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export function tlv(id: string, value: string): string {
  const len = Buffer.byteLength(value, 'utf8');
  if (!/^\d{2}$/.test(id) || len > 99) throw new Error(`EMVCo field ${id} is too long`);
  return `${id}${String(len).padStart(2, '0')}${value}`;
}

/** Appends field 63 (CRC) to a payload. */
export function withCrc(payload: string): string {
  const body = `${payload}6304`;
  return body + crc16ccitt(body);
}

/** Splits a payload into its top-level fields (for tests and for the checkout page). */
export function parseTlv(payload: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i < payload.length;) {
    const id = payload.slice(i, i + 2);
    const len = Number(payload.slice(i + 2, i + 4));
    fields.set(id, payload.slice(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return fields;
}

/** The PromptPay application id for bill payments (EMVCo tag 30). */
export const PROMPTPAY_BILL_PAYMENT_AID = 'A000000677010112';

export interface PromptPayBillPayment {
  /** The collecting account's biller id: 13-digit tax id + 2-digit suffix. */
  billerId: string;
  /** Reference 1: matches the payment to the intent. Upper-case letters and digits, at most 20. */
  reference1: string;
  /** Reference 2 (optional). */
  reference2?: string;
  /** Major units with two decimals, e.g. "150.00". */
  amount: string;
  merchantName: string;
}

/** A dynamic (single-use, point-of-initiation 12) PromptPay bill-payment payload in THB. */
export function promptPayPayload(p: PromptPayBillPayment): string {
  const account = tlv('00', PROMPTPAY_BILL_PAYMENT_AID) + tlv('01', p.billerId) + tlv('02', p.reference1) + (p.reference2 ? tlv('03', p.reference2) : '');
  const payload =
    tlv('00', '01') + tlv('01', '12') + tlv('30', account) + tlv('53', '764') + tlv('54', p.amount) + tlv('58', 'TH') + tlv('59', p.merchantName.slice(0, 25));
  return withCrc(payload);
}
