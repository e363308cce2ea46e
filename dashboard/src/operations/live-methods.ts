/** Which payment methods live mode can take now (owners and admins). GraphQL Code Generator types the document. */
import { graphql } from '../gql';

export const LivePaymentMethodsDocument = graphql(`
  query LivePaymentMethods {
    livePaymentMethods {
      paymentMethod
      displayName
      live
    }
  }
`);
