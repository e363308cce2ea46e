/** Top-ups: the list and one top-up. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const TopupsDocument = graphql(`
  query Topups($after: String, $filter: TopupIntentFilter) {
    topupIntents(first: 10, after: $after, filter: $filter) {
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
      nextStep {
        __typename
        ... on DisplayBankTransferInstructionsAction {
          expiresAt
          displayBankTransferInstructions {
            bankName
            accountName
            accountNumber
            reference
            amountMoney {
              decimal
              currency
            }
          }
        }
      }
    }
  }
`);
