/** The audit log. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const AuditDocument = graphql(`
  query Audit($after: String, $filter: AuditLogFilter) {
    auditLog(first: 15, after: $after, filter: $filter) {
      nodes {
        id
        actor {
          type
          id
          email
        }
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

export const AuditActorsDocument = graphql(`
  query AuditActors($withKeys: Boolean!) {
    teamMembers {
      id
      email
    }
    apiKeys @include(if: $withKeys) {
      id
      name
      publicKey
    }
  }
`);
