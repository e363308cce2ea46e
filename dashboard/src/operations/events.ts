/** Events, newest first. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

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
