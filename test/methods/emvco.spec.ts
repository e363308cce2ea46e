/** EMVCo merchant-presented QR payloads and the PromptPay bill payment (src/modules/methods/emvco.ts). */
import { PROMPTPAY_BILL_PAYMENT_AID, crc16ccitt, parseTlv, promptPayPayload, tlv, withCrc } from '../../src/modules/methods/emvco';

describe('CRC16-CCITT (poly 0x1021, init 0xFFFF)', () => {
  test('the standard check value of "123456789" is 29B1', () => {
    expect(crc16ccitt('123456789')).toBe('29B1');
  });

  test('empty input is the initial value; results are four upper-case hex digits', () => {
    expect(crc16ccitt('')).toBe('FFFF');
    expect(crc16ccitt('A')).toBe('B915');
    for (const s of ['x', 'hello', '000201', 'สมชาย']) expect(crc16ccitt(s)).toMatch(/^[0-9A-F]{4}$/);
  });

  test('a known PromptPay payload carries the CRC of everything before it', () => {
    // A static PromptPay payload to mobile 0812345678; the expected CRC was computed
    // independently (Python: '%04X' % binascii.crc_hqx(payload, 0xFFFF)).
    const payload = '00020101021129370016A000000677010111011300668123456785802TH53037646304';
    expect(crc16ccitt(payload)).toBe('5D82');
  });

  test('one changed character changes the CRC', () => {
    expect(crc16ccitt('000201010212')).not.toBe(crc16ccitt('000201010211'));
  });
});

describe('TLV fields', () => {
  test('id, two-digit length in bytes, value', () => {
    expect(tlv('00', '01')).toBe('000201');
    expect(tlv('59', 'ACME')).toBe('5904ACME');
    expect(tlv('59', '')).toBe('5900');
    expect(tlv('59', 'ก')).toBe('5903ก'); // length counts UTF-8 bytes
  });

  test('ids must be two digits and values at most 99 bytes', () => {
    expect(tlv('01', 'x'.repeat(99))).toHaveLength(103);
    expect(() => tlv('01', 'x'.repeat(100))).toThrow();
    expect(() => tlv('1', 'x')).toThrow();
    expect(() => tlv('AB', 'x')).toThrow();
  });

  test('parseTlv splits what tlv joins', () => {
    const fields = parseTlv(tlv('00', '01') + tlv('30', tlv('00', 'abc') + tlv('01', 'de')) + tlv('59', 'Shop'));
    expect([...fields.entries()]).toEqual([
      ['00', '01'],
      ['30', '0003abc0102de'],
      ['59', 'Shop'],
    ]);
    expect([...parseTlv(fields.get('30')!).entries()]).toEqual([
      ['00', 'abc'],
      ['01', 'de'],
    ]);
  });

  test('withCrc appends 6304 and the CRC over the payload including 6304', () => {
    const out = withCrc('000201');
    expect(out).toBe(`0002016304${crc16ccitt('0002016304')}`);
    expect(parseTlv(out).get('63')).toBe(crc16ccitt('0002016304'));
  });
});

describe('promptPayPayload', () => {
  const base = { billerId: '010556012345601', reference1: 'PI01JF3X', amount: '150.50', merchantName: 'Acme Coffee' };

  test('has the bill-payment fields in order, THB, TH, and a valid CRC', () => {
    const payload = promptPayPayload(base);
    const fields = parseTlv(payload);
    expect([...fields.keys()]).toEqual(['00', '01', '30', '53', '54', '58', '59', '63']);
    expect(fields.get('00')).toBe('01');
    expect(fields.get('01')).toBe('12'); // dynamic, single use
    expect(fields.get('53')).toBe('764');
    expect(fields.get('54')).toBe('150.50');
    expect(fields.get('58')).toBe('TH');
    expect(fields.get('59')).toBe('Acme Coffee');
    const account = parseTlv(fields.get('30')!);
    expect([...account.entries()]).toEqual([
      ['00', PROMPTPAY_BILL_PAYMENT_AID],
      ['01', '010556012345601'],
      ['02', 'PI01JF3X'],
    ]);
    expect(PROMPTPAY_BILL_PAYMENT_AID).toBe('A000000677010112');
    expect(payload.endsWith(`6304${fields.get('63')}`)).toBe(true);
    expect(fields.get('63')).toBe(crc16ccitt(payload.slice(0, -4)));
  });

  test('reference 2 is included only when given', () => {
    const account = parseTlv(parseTlv(promptPayPayload({ ...base, reference2: 'REF2' })).get('30')!);
    expect(account.get('03')).toBe('REF2');
    expect(parseTlv(parseTlv(promptPayPayload(base)).get('30')!).has('03')).toBe(false);
  });

  test('the merchant name is cut to 25 characters', () => {
    const fields = parseTlv(promptPayPayload({ ...base, merchantName: 'A Very Long Merchant Name That Goes On' }));
    expect(fields.get('59')).toBe('A Very Long Merchant Name');
  });

  test('a tampered payload no longer matches its CRC', () => {
    const payload = promptPayPayload(base);
    const tampered = payload.replace('5406150.50', '5406999.99');
    expect(tampered).not.toBe(payload);
    expect(crc16ccitt(tampered.slice(0, -4))).not.toBe(tampered.slice(-4));
  });
});
