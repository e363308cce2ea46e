/**
 * Calling the REST API with types generated from its OpenAPI document
 * (`npm run build:client` writes dist/openapi.d.ts with openapi-typescript).
 * Compiled against the generated types by test/contract/typed-client.test.ts.
 */
import type { components, paths } from '../dist/openapi';

type CreatePayout = paths['/payout_intents']['post'];
type PayoutBody = CreatePayout['requestBody']['content']['application/json'];
type PayoutIntent = CreatePayout['responses'][201]['content']['application/json'];
type ApiError = components['schemas']['Error'];

export async function createPayout(baseUrl: string, publicKey: string, secretKey: string, body: PayoutBody): Promise<PayoutIntent> {
  const res = await fetch(`${baseUrl}/v1/payout_intents`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  if (res.status !== 201 && res.status !== 200) {
    const { error } = (await res.json()) as ApiError;
    throw new Error(`${res.status} ${error.code}${error.param ? ` (${error.param})` : ''}: ${error.message}`);
  }
  return (await res.json()) as PayoutIntent;
}

export const example: PayoutBody = {
  amount: '150000', // minor units, as a string
  currency: 'THB',
  country: 'TH',
  merchant_reference: 'order-1042',
  recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '123-4-56789-0', holder_name: 'Somchai Jaidee' },
};
