/** Payouts: the list, one payout, and its approve and cancel mutations. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const PayoutsDocument = graphql(`
  query Payouts($after: String, $filter: PayoutIntentFilter) {
    payoutIntents(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amountMoney {
          decimal
          currency
        }
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
      amountMoney {
        decimal
        currency
      }
      currency
      country
      merchantReference
      failureCode
      failureMessage
      createdAt
      updatedAt
      environment
      approvalsRequired
      approvals {
        createdAt
        actor {
          type
          id
          email
        }
      }
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
      approvalsRequired
      approvals {
        createdAt
      }
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
