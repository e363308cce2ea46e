/** The overview the dashboard lands on: per currency, the period's figures and its days. GraphQL Code Generator types it. */
import { graphql } from '../gql';

export const OverviewDocument = graphql(`
  query Overview($period: OverviewPeriod!) {
    overview(period: $period) {
      period
      from
      to
      currencies {
        currency
        grossMoney {
          decimal
          currency
        }
        feesMoney {
          decimal
          currency
        }
        refundsMoney {
          decimal
          currency
        }
        netMoney {
          decimal
          currency
        }
        payoutsMoney {
          decimal
          currency
        }
        days {
          date
          grossMoney {
            decimal
            currency
          }
          feesMoney {
            decimal
            currency
          }
          refundsMoney {
            decimal
            currency
          }
          netMoney {
            decimal
            currency
          }
          payoutsMoney {
            decimal
            currency
          }
        }
      }
    }
  }
`);
