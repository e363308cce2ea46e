/** Payment intents: the list, one intent, and its cancel mutation. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const PaymentsDocument = graphql(`
  query Payments($after: String, $filter: PaymentIntentFilter) {
    paymentIntents(first: 10, after: $after, filter: $filter) {
      nodes {
        id
        status
        amountMoney {
          decimal
          currency
        }
        amountRefundedMoney {
          minorUnits
          decimal
          currency
        }
        currency
        merchantReference
        paymentMethod
        createdAt
        failureMessage
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const PaymentDocument = graphql(`
  query Payment($id: ID!) {
    paymentIntent(id: $id) {
      id
      status
      amountMoney {
        decimal
        currency
      }
      amountRefundedMoney {
        minorUnits
        decimal
        currency
      }
      currency
      country
      merchantReference
      paymentLink {
        id
        description
      }
      paymentMethod
      checkoutMode
      processingReason
      failureCode
      failureMessage
      createdAt
      updatedAt
      nextStep {
        __typename
        ... on RedirectToUrlAction {
          url
          expiresAt
        }
        ... on DisplayQrCodeAction {
          expiresAt
        }
        ... on DisplayBankTransferInstructionsAction {
          expiresAt
        }
      }
      receipt {
        receiptNumber
        reference
        paidAt
        paymentMethod
        bank
      }
      balanceTransactions {
        ...BalanceTransactionAmounts
      }
      refunds(first: 10) {
        nodes {
          id
          status
          amountMoney {
            decimal
            currency
          }
          currency
          reason
          createdAt
        }
      }
    }
  }
`);

export const CancelPaymentDocument = graphql(`
  mutation CancelPayment($id: ID!, $reason: String) {
    cancelPaymentIntent(id: $id, reason: $reason) {
      id
      status
      failureMessage
    }
  }
`);
