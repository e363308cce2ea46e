/** Payment links: the list, create, update (activate / deactivate), and the methods a new link would offer its payer. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const PaymentLinksDocument = graphql(`
  query PaymentLinks($after: String) {
    paymentLinks(first: 10, after: $after) {
      nodes {
        ...LinkFields
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
    balances {
      currency
      availableMoney {
        exponent
      }
    }
  }
`);

export const LinkFieldsFragment = graphql(`
  fragment LinkFields on PaymentLink {
    id
    url
    active
    reusable
    description
    currency
    country
    completedCount
    completionLimit
    expiresAt
    createdAt
    amountMoney {
      decimal
      currency
    }
    customerChooses {
      minimumMoney {
        decimal
        currency
      }
      maximumMoney {
        decimal
        currency
      }
    }
  }
`);

export const CreatePaymentLinkDocument = graphql(`
  mutation CreatePaymentLink($input: CreatePaymentLinkInput!) {
    createPaymentLink(input: $input) {
      ...LinkFields
    }
  }
`);

export const UpdatePaymentLinkDocument = graphql(`
  mutation UpdatePaymentLink($id: ID!, $input: UpdatePaymentLinkInput!) {
    updatePaymentLink(id: $id, input: $input) {
      ...LinkFields
    }
  }
`);

export const PaymentLinkDocument = graphql(`
  query PaymentLink($id: ID!) {
    paymentLink(id: $id) {
      ...LinkFields
    }
  }
`);

export const LinkMethodsDocument = graphql(`
  query LinkMethods($currency: String, $country: String!, $amountMoney: MoneyInput) {
    paymentMethodOptions(currency: $currency, country: $country, amountMoney: $amountMoney, checkoutMode: HOSTED) {
      nodes {
        id
        paymentMethod
        displayName
        hint
      }
    }
    paymentMethodSettings {
      paymentMethod
      displayName
    }
  }
`);
