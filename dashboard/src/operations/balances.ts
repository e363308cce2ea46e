/** Balances, per currency. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

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
