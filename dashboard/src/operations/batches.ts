/** Payout batches: the list, one batch with its items, create (items), approve, cancel. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const PayoutBatchesDocument = graphql(`
  query PayoutBatches($after: String) {
    payoutBatches(first: 10, after: $after) {
      nodes {
        id
        status
        itemCount
        createdAt
        totals {
          amountMoney {
            decimal
            currency
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const PayoutBatchDocument = graphql(`
  query PayoutBatch($id: ID!) {
    payoutBatch(id: $id) {
      ...BatchFields
      items(first: 25) {
        nodes {
          id
          status
          merchantReference
          amountMoney {
            decimal
            currency
          }
          recipient {
            holderName
            bankCode
            accountLast4
          }
          failureMessage
        }
      }
    }
  }
`);

export const BatchFieldsFragment = graphql(`
  fragment BatchFields on PayoutBatch {
    id
    status
    itemCount
    createdAt
    updatedAt
    approvalsRequired
    approvals {
      createdAt
      actor {
        type
        id
        email
      }
    }
    totals {
      amountMoney {
        decimal
        currency
      }
    }
    errors {
      row
      param
      message
    }
  }
`);

export const CreatePayoutBatchDocument = graphql(`
  mutation CreatePayoutBatch($items: [CreatePayoutIntentInput!]!) {
    createPayoutBatch(items: $items) {
      ...BatchFields
    }
  }
`);

export const ApprovePayoutBatchDocument = graphql(`
  mutation ApprovePayoutBatch($id: ID!) {
    approvePayoutBatch(id: $id) {
      ...BatchFields
    }
  }
`);

export const CancelPayoutBatchDocument = graphql(`
  mutation CancelPayoutBatch($id: ID!, $reason: String) {
    cancelPayoutBatch(id: $id, reason: $reason) {
      ...BatchFields
    }
  }
`);

export const CurrencyExponentsDocument = graphql(`
  query CurrencyExponents {
    balances {
      currency
      availableMoney {
        currency
        exponent
      }
    }
  }
`);
