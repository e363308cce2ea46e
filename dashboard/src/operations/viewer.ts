/** The signed-in key's merchant and environment. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

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
