/** Webhook endpoints and the delivery attempts to one. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

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
