/** The signed-in member: who, where (merchant, environment), what their role allows; and switching. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const MeDocument = graphql(`
  query Me {
    me {
      id
      email
      displayName
      role
      environment
      totpEnabled
      merchant {
        id
        name
      }
      memberships {
        role
        merchant {
          id
          name
        }
      }
      permissions
      capabilities
    }
    events(first: 1) {
      nodes {
        id
      }
    }
  }
`);

export const SwitchMerchantDocument = graphql(`
  mutation SwitchMerchant($merchantId: ID!, $environment: Environment) {
    switchMerchant(merchantId: $merchantId, environment: $environment) {
      id
    }
  }
`);

export const EnrolTotpDocument = graphql(`
  mutation EnrolTotp {
    enrolTotp {
      secret
      uri
      qrSvg
    }
  }
`);

export const ConfirmTotpDocument = graphql(`
  mutation ConfirmTotp($code: String!) {
    confirmTotp(code: $code) {
      recoveryCodes
    }
  }
`);

export const ConfirmSecondFactorDocument = graphql(`
  mutation ConfirmSecondFactor($code: String!) {
    confirmSecondFactor(code: $code)
  }
`);

export const ChangePasswordDocument = graphql(`
  mutation ChangePassword($currentPassword: String!, $newPassword: String!) {
    changePassword(currentPassword: $currentPassword, newPassword: $newPassword)
  }
`);

export const RegenerateRecoveryCodesDocument = graphql(`
  mutation RegenerateRecoveryCodes($code: String!) {
    regenerateRecoveryCodes(code: $code) {
      recoveryCodes
    }
  }
`);
