/** Every query and mutation the dashboard sends; GraphQL Code Generator types each one. */
import { graphql } from './gql';

export const ViewerDocument = graphql(`
  query Viewer {
    viewer {
      apiKeyId
      environment
      merchant {
        id
        name
      }
    }
    events(first: 1) {
      nodes {
        id
      }
    }
  }
`);

export const BalancesDocument = graphql(`
  query Balances($types: [String!]) {
    balances {
      currency
      available
      pending
      reserved
      updatedAt
    }
    events(first: 20, filter: { type: $types }) {
      nodes {
        id
        type
        createdAt
        data {
          object
        }
      }
    }
  }
`);

export const PayoutsDocument = graphql(`
  query Payouts($after: String, $filter: PayoutIntentFilter) {
    payoutIntents(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amount
        currency
        merchantReference
        createdAt
        updatedAt
        failureMessage
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const PayoutDocument = graphql(`
  query Payout($id: ID!) {
    payoutIntent(id: $id) {
      id
      status
      amount
      currency
      country
      merchantReference
      failureCode
      failureMessage
      createdAt
      updatedAt
      environment
      recipient {
        type
        bankCode
        accountLast4
        holderName
      }
    }
    auditLog(first: 20, filter: { resourceId: $id }) {
      nodes {
        id
        operation
        reason
        statusCode
        createdAt
        requestId
      }
    }
  }
`);

export const ApprovePayoutDocument = graphql(`
  mutation ApprovePayout($id: ID!) {
    approvePayoutIntent(id: $id) {
      id
      status
      updatedAt
    }
  }
`);

export const CancelPayoutDocument = graphql(`
  mutation CancelPayout($id: ID!, $reason: String) {
    cancelPayoutIntent(id: $id, reason: $reason) {
      id
      status
      failureMessage
      updatedAt
    }
  }
`);

export const PaymentsDocument = graphql(`
  query Payments($after: String, $filter: PaymentIntentFilter) {
    paymentIntents(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amount
        amountRefunded
        currency
        merchantReference
        paymentMethod
        createdAt
        failureMessage
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const PaymentDocument = graphql(`
  query Payment($id: ID!) {
    paymentIntent(id: $id) {
      id
      status
      amount
      amountRefunded
      currency
      country
      merchantReference
      paymentMethod
      checkoutMode
      processingReason
      failureCode
      failureMessage
      createdAt
      updatedAt
      nextAction {
        type
        url
        expiresAt
      }
      receipt {
        receiptNumber
        reference
        paidAt
        paymentMethod
        bank
      }
      refunds(first: 10) {
        nodes {
          id
          status
          amount
          currency
          reason
          createdAt
        }
      }
    }
  }
`);

export const CancelPaymentDocument = graphql(`
  mutation CancelPayment($id: ID!, $reason: String) {
    cancelPaymentIntent(id: $id, reason: $reason) {
      id
      status
      failureMessage
    }
  }
`);

export const TopupsDocument = graphql(`
  query Topups($after: String, $filter: TopupIntentFilter) {
    topupIntents(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amount
        currency
        merchantReference
        createdAt
        failureMessage
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const TopupDocument = graphql(`
  query Topup($id: ID!) {
    topupIntent(id: $id) {
      id
      status
      amount
      currency
      country
      merchantReference
      failureCode
      failureMessage
      createdAt
      updatedAt
      nextAction {
        type
        expiresAt
        displayBankTransferInstructions {
          bankName
          accountName
          accountNumber
          reference
          amount
          currency
        }
      }
    }
  }
`);

export const RefundsDocument = graphql(`
  query Refunds($after: String, $filter: RefundFilter) {
    refunds(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amount
        currency
        merchantReference
        paymentIntentId
        reason
        createdAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const RefundDocument = graphql(`
  query Refund($id: ID!) {
    refund(id: $id) {
      id
      status
      amount
      currency
      merchantReference
      paymentIntentId
      reason
      failureCode
      failureMessage
      createdAt
      updatedAt
    }
  }
`);

export const EventsDocument = graphql(`
  query Events($after: String, $filter: EventFilter) {
    events(first: 15, after: $after, filter: $filter) {
      nodes {
        id
        type
        createdAt
        data {
          object
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const WebhooksDocument = graphql(`
  query Webhooks {
    webhookEndpoints(first: 50) {
      nodes {
        id
        url
        status
        enabledEvents
        disabledReason
        createdAt
      }
    }
  }
`);

export const WebhookAttemptsDocument = graphql(`
  query WebhookAttempts($id: ID!, $after: String) {
    webhookAttempts(webhookEndpointId: $id, first: 15, after: $after) {
      nodes {
        id
        eventId
        attemptNumber
        statusCode
        error
        durationMs
        createdAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const AuditDocument = graphql(`
  query Audit($after: String, $filter: AuditLogFilter) {
    auditLog(first: 15, after: $after, filter: $filter) {
      nodes {
        id
        operation
        resourceType
        resourceId
        reason
        statusCode
        requestId
        createdAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);
