/** The merchant's team: members, invite, change role, remove. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const TeamDocument = graphql(`
  query Team {
    teamMembers {
      id
      email
      displayName
      role
      active
      totpEnabled
      joinedAt
    }
  }
`);

export const InviteMemberDocument = graphql(`
  mutation InviteMember($email: String!, $role: Role!) {
    inviteMember(email: $email, role: $role) {
      userId
      setupUrl
    }
  }
`);

export const ChangeMemberRoleDocument = graphql(`
  mutation ChangeMemberRole($userId: ID!, $role: Role!) {
    changeMemberRole(userId: $userId, role: $role) {
      id
      role
    }
  }
`);

export const RemoveMemberDocument = graphql(`
  mutation RemoveMember($userId: ID!) {
    removeMember(userId: $userId)
  }
`);

export const IssueSetupLinkDocument = graphql(`
  mutation IssueSetupLink($userId: ID!) {
    issueSetupLink(userId: $userId) {
      userId
      setupUrl
    }
  }
`);

export const IssuePasswordResetLinkDocument = graphql(`
  mutation IssuePasswordResetLink($userId: ID!) {
    issuePasswordResetLink(userId: $userId) {
      userId
      setupUrl
    }
  }
`);
