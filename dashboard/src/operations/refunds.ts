/** Refunds: the list and one refund. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const RefundsDocument = graphql(`
  query Refunds($after: String, $filter: RefundFilter) {
    refunds(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amountMoney {
          decimal
          currency
        }
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
      amountMoney {
        decimal
        currency
      }
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
