/** Settings: the approval policies (owners change them) and the operator's fee schedule. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const SettingsDocument = graphql(`
  query Settings {
    approvalPolicies {
      id
      currency
      minAmountMoney {
        minorUnits
        decimal
        currency
      }
      approvals
      keysCount
      updatedAt
    }
    feeSchedule {
      environment
      methods {
        paymentMethod
        percentBps
        fixed
      }
      payoutFixed
      taxBps
      updatedAt
    }
  }
`);

export const SetApprovalPolicyDocument = graphql(`
  mutation SetApprovalPolicy($input: SetApprovalPolicyInput!) {
    setApprovalPolicy(input: $input) {
      id
      currency
      minAmountMoney {
        minorUnits
        decimal
        currency
      }
      approvals
      keysCount
      updatedAt
    }
  }
`);

export const DeleteApprovalPolicyDocument = graphql(`
  mutation DeleteApprovalPolicy($id: ID!) {
    deleteApprovalPolicy(id: $id) {
      id
    }
  }
`);
