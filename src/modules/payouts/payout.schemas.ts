/**
 * The payout intents' schemas: the create body (validated by the pipeline for REST and
 * GraphQL alike), the wire record and its type, and what each route publishes in the OpenAPI
 * document.
 */
import { BANK_CODES } from '../../domain/banks';
import { Type, type Static } from '@sinclair/typebox';
import {
  ActorSchema,
  Amount,
  AmountText,
  codePattern,
  Country,
  Currency,
  EnvironmentName,
  IgnoredEnvironment,
  Instant,
  MerchantReference,
  Nullable,
  Obj,
  NON_BLANK_TEXT,
} from '../../domain/fields';
import { answer, failure, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { Literals } from '../shared/wire-schema';
import { PAYOUT_STATUSES } from './payout.states';

export const CreatePayoutIntentBody = Obj(
  {
    amount: Amount,
    currency: Currency,
    country: Country,
    merchant_reference: MerchantReference,
    recipient: Obj({
      type: Type.Literal('bank_account'),
      bank_code: Type.String({
        maxLength: 64,
        pattern: codePattern(BANK_CODES),
        'x-messages': { pattern: `The bank code is not supported: use one of ${BANK_CODES.join(', ')}.` },
        description: `A supported bank code (${BANK_CODES.join(', ')}); trimmed and upper-cased.`,
      }),
      account_number: Type.String({
        maxLength: 64,
        pattern: '^[\\s-]*(?:[A-Za-z0-9][\\s-]*){4,34}$',
        'x-expected': '4 to 34 letters or digits (spaces and hyphens are ignored)',
        description: '4 to 34 letters or digits once spaces and hyphens are removed; stored encrypted, only the last four are ever returned.',
      }),
      holder_name: Type.String({
        maxLength: 256,
        ...NON_BLANK_TEXT,
        'x-expected': 'a name that is not blank',
        description: 'Trimmed.',
      }),
    }),
    environment: IgnoredEnvironment,
  },
  { title: 'CreatePayoutIntent' },
);
export type CreatePayoutIntentBody = Static<typeof CreatePayoutIntentBody>;

/** The create body as a component, for what refers to it (a payout batch's items). */
export const CreatePayoutIntentModel = Type.Unsafe({ ...CreatePayoutIntentBody, $id: 'CreatePayoutIntent' });

export const ApprovalSchema = Type.Object({ actor: ActorSchema, created_at: Instant }, { additionalProperties: false });

export const PayoutIntentSchema = Type.Object(
  {
    object: Type.Literal('payout_intent'),
    id: Type.String(),
    amount: AmountText,
    currency: Type.String(),
    country: Type.String(),
    environment: EnvironmentName,
    status: Literals(PAYOUT_STATUSES),
    merchant_reference: Type.String(),
    recipient: Type.Object(
      {
        type: Type.Literal('bank_account'),
        account_last4: Type.String({ description: 'The full account number is never returned.' }),
        bank_code: Type.String(),
        holder_name: Type.String(),
      },
      { additionalProperties: false },
    ),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    payout_batch: Nullable(Type.String({ description: 'The payout batch it was approved with; null for a payout created on its own.' })),
    approvals_required: Type.Integer({
      minimum: 1,
      maximum: 3,
      description: 'Approvals it needs to move to processing: its approval policy at creation (1 without one).',
    }),
    approvals: Type.Array(ApprovalSchema, { description: 'The approvals recorded so far, oldest first.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'PayoutIntent', additionalProperties: false },
);
export type PayoutIntentWire = Static<typeof PayoutIntentSchema>;

const record = (description: string) => answer(description, 'PayoutIntent');

export const PAYOUT_ROUTES = {
  create: {
    operationId: 'createPayoutIntent',
    permission: 'payout_intents:write',
    summary: 'Create a payout intent (it waits at the approval gate).',
    description: 'Reserves the amount from the available balance of the currency.',
    responses: {
      201: record('Created.'),
      200: record('merchant_reference repeated: the original payout intent.'),
      ...writeFailures,
      422: failure('insufficient_balance: the available balance of the currency is lower than the amount.'),
    },
  },
  list: {
    operationId: 'listPayoutIntents',
    permission: 'payout_intents:read',
    summary: 'List payout intents, newest first.',
    responses: { 200: pageOf('PayoutIntent'), ...readFailures },
  },
  get: {
    operationId: 'getPayoutIntent',
    permission: 'payout_intents:read',
    summary: 'Retrieve a payout intent.',
    responses: { 200: record('The payout intent.'), ...readFailures },
  },
  approve: {
    operationId: 'approvePayoutIntent',
    permission: 'payout_approvals:write',
    summary: 'Approve: requires_approval -> processing. The body may be absent.',
    responses: { 202: record('Approved.'), ...writeFailures, 422: failure('invalid_state') },
  },
  cancel: {
    operationId: 'cancelPayoutIntent',
    permission: 'payout_intents:write',
    summary: 'Cancel a payout intent at the approval gate. The body may be absent.',
    responses: { 202: record('Cancelled.'), ...writeFailures, 422: failure('approval_required: the message names the current status.') },
  },
  testSucceed: {
    operationId: 'testSucceedPayoutIntent',
    permission: 'payout_intents:write',
    summary: 'Test keys only: settle a processing payout as succeeded.',
    description: 'A live key gets 404 not_found, as for an unknown route.',
    responses: { 200: record('Settled.'), ...writeFailures, 422: failure('invalid_state') },
  },
  testFail: {
    operationId: 'testFailPayoutIntent',
    permission: 'payout_intents:write',
    summary: 'Test keys only: settle a processing payout as failed.',
    description: 'A live key gets 404 not_found, as for an unknown route.',
    responses: { 200: record('Settled.'), ...writeFailures, 422: failure('invalid_state') },
  },
} satisfies Record<string, RouteDoc>;
