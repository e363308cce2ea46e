/** API keys (list, create, roll, revoke) and the signed-in member's sessions. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const ApiKeyFieldsFragment = graphql(`
  fragment ApiKeyFields on ApiKey {
    id
    name
    publicKey
    restricted
    permissions
    status
    createdAt
    lastUsedAt
    expiresAt
    revokedAt
  }
`);

export const ApiKeysDocument = graphql(`
  query ApiKeys {
    apiKeys {
      ...ApiKeyFields
    }
  }
`);

export const CreateApiKeyDocument = graphql(`
  mutation CreateApiKey($input: CreateApiKeyInput) {
    createApiKey(input: $input) {
      ...ApiKeyFields
      secretKey
    }
  }
`);

export const RollApiKeyDocument = graphql(`
  mutation RollApiKey($id: ID!, $overlapHours: Int) {
    rollApiKey(id: $id, overlapHours: $overlapHours) {
      ...ApiKeyFields
      secretKey
    }
  }
`);

export const RevokeApiKeyDocument = graphql(`
  mutation RevokeApiKey($id: ID!) {
    revokeApiKey(id: $id) {
      id
    }
  }
`);

export const SessionsDocument = graphql(`
  query Sessions {
    sessions {
      id
      current
      createdAt
      lastSeenAt
      expiresAt
      userAgent
    }
  }
`);

export const EndSessionDocument = graphql(`
  mutation EndSession($id: ID!) {
    endSession(id: $id)
  }
`);
