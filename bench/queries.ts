/** The GraphQL documents the benchmark sends; the floor answers exactly these (and nothing else). */

const PAYOUT_FIELDS =
  'id amount currency country environment status merchantReference failureCode failureMessage createdAt updatedAt recipient { type bankCode holderName accountLast4 }';

export const GQL_PAYOUT_LIST = `query($after: String) { payoutIntents(first: 25, after: $after) { nodes { ${PAYOUT_FIELDS} } pageInfo { hasNextPage endCursor } } }`;

export const GQL_PAYOUT_GET = `query($id: ID!) { payoutIntent(id: $id) { ${PAYOUT_FIELDS} } }`;

export const GQL_CREATE_PAYOUT = `mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { ${PAYOUT_FIELDS} } }`;

export const GQL_CREATE_PAYMENT =
  'mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { id amount currency country environment status merchantReference createdAt } }';

export const GQL_EVENTS_SUBSCRIPTION = 'subscription { events { id type createdAt } }';

/** Replaced in a request body by a fresh random token for every request (merchant_reference). */
export const FRESH = '__FRESH__';

export const payoutBody = (amount = '1000') => ({
  amount,
  currency: 'THB',
  country: 'TH',
  merchant_reference: `bench-po-${FRESH}`,
  recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
});

export const paymentBody = () => ({
  amount: '50000',
  currency: 'THB',
  country: 'TH',
  merchant_reference: `bench-pi-${FRESH}`,
  payment_method: 'promptpay',
  customer: { name: 'Bench Payer', email: 'payer@example.com' },
});

export const gqlPayoutInput = () => ({
  amount: '1000',
  currency: 'THB',
  country: 'TH',
  merchantReference: `bench-gpo-${FRESH}`,
  recipient: { type: 'BANK_ACCOUNT', bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' },
});

export const gqlPaymentInput = () => ({
  amount: '50000',
  currency: 'THB',
  country: 'TH',
  merchantReference: `bench-gpi-${FRESH}`,
  paymentMethod: 'promptpay',
  customer: { name: 'Bench Payer', email: 'payer@example.com' },
});
