/**
 * The simulated payment providers and what each offers (the catalogue's data; its
 * vocabulary and types are in catalogue.ts). To add a provider, add an entry to PROVIDERS;
 * nothing else changes (see docs/payments.md). Local codes, provider codes and priorities
 * never leave the service.
 */
import type { ProviderDefinition } from './catalogue';

const TH_THB = { countries: ['TH'], currencies: ['THB'] } as const;

export const PROVIDERS: readonly ProviderDefinition[] = [
  {
    code: 'siampay',
    name: 'SiamPay (simulated)',
    environments: ['test', 'live'],
    promptPayBillerId: '010556012345601',
    offers: [
      {
        method: 'promptpay',
        localCode: 'SP-PPQR',
        ...TH_THB,
        minAmount: 100n,
        maxAmount: 20_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: [],
        priority: 10,
      },
      {
        method: 'bank_transfer',
        localCode: 'SP-XFER',
        ...TH_THB,
        minAmount: 2_000n,
        maxAmount: 50_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: ['account_name', 'account_number', 'bank'],
        priority: 10,
        banks: {
          KBANK: { localCode: 'sp-004', account: { number: '0481234567', name: 'Payments Gateway Client Funds' } },
          SCB: { localCode: 'sp-014', account: { number: '4079876543', name: 'Payments Gateway Client Funds' } },
          BBL: { localCode: 'sp-002', account: { number: '2215550199', name: 'Payments Gateway Client Funds' } },
        },
      },
    ],
  },
  {
    code: 'krungpay',
    name: 'KrungPay (simulated)',
    environments: ['test', 'live'],
    promptPayBillerId: '099400077788801',
    offers: [
      {
        method: 'promptpay',
        localCode: 'KP_QR30',
        ...TH_THB,
        minAmount: 2_000n,
        maxAmount: 100_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: ['customer_name'],
        priority: 20,
      },
      {
        method: 'bank_transfer',
        localCode: 'KP_BT',
        ...TH_THB,
        minAmount: 2_000n,
        maxAmount: 100_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: ['bank', 'name_th'],
        priority: 20,
        banks: {
          KBANK: { localCode: 'kp_kb', account: { number: '0739990001', name: 'Payments Gateway Client Funds' } },
          KTB: { localCode: 'kp_kt', account: { number: '9810002233', name: 'Payments Gateway Client Funds' } },
          BAY: { localCode: 'kp_ay', account: { number: '5558880101', name: 'Payments Gateway Client Funds' } },
        },
      },
      {
        method: 'online_banking',
        localCode: 'KP_IB',
        ...TH_THB,
        minAmount: 2_000n,
        maxAmount: 20_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: ['bank'],
        priority: 10,
        banks: { SCB: { localCode: 'kp_scb_ib' }, KTB: { localCode: 'kp_ktb_ib' }, BAY: { localCode: 'kp_bay_ib' } },
      },
    ],
  },
  {
    code: 'nusapay',
    name: 'NusaPay (simulated)',
    environments: ['test', 'live'],
    offers: [
      {
        method: 'bank_transfer',
        localCode: 'NP.VA',
        countries: ['ID'],
        currencies: ['IDR'],
        minAmount: 1_000_000n,
        maxAmount: 10_000_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: ['customer_name', 'customer_phone', 'bank'],
        priority: 10,
        banks: {
          BCA: { localCode: 'np014', virtualAccountPrefix: '39358' },
          BNI: { localCode: 'np009', virtualAccountPrefix: '8808' },
          BRI: { localCode: 'np002', virtualAccountPrefix: '26215' },
          MANDIRI: { localCode: 'np008', virtualAccountPrefix: '89508' },
        },
      },
    ],
  },
  {
    code: 'directline',
    name: 'DirectLine debit pilot (simulated; not certified for live)',
    environments: ['test'],
    offers: [
      {
        method: 'direct_debit',
        localCode: 'DL/DD',
        ...TH_THB,
        minAmount: 100n,
        maxAmount: 10_000_000n,
        checkoutModes: ['direct'],
        payer: ['account_name', 'account_number', 'bank', 'name_th'],
        priority: 10,
        banks: { KBANK: { localCode: 'dl-kbank' }, SCB: { localCode: 'dl-scb' } },
      },
    ],
    testOutcomes: {
      '0000000010': { holdReason: 'risk_review', settle: { status: 'succeeded' } },
      '0000000028': {
        holdReason: 'risk_review',
        settle: { status: 'failed', failureCode: 'insufficient_funds', failureMessage: "The payer's account has insufficient funds." },
      },
    },
  },
];

/** Every provider-local string: codes that must never appear in a response. */
export function localCodes(): string[] {
  const codes = new Set<string>();
  for (const p of PROVIDERS) {
    codes.add(p.code);
    for (const o of p.offers) {
      codes.add(o.localCode);
      for (const route of Object.values(o.banks ?? {})) codes.add(route.localCode);
    }
  }
  return [...codes];
}
