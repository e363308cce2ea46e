/** Balances, per currency. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const BalancesDocument = graphql(`
  query Balances($types: [String!]) {
    balances {
      currency
      availableMoney {
        decimal
        currency
        exponent
      }
      pendingMoney {
        decimal
        currency
        exponent
      }
      reservedMoney {
        decimal
        currency
        exponent
      }
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
