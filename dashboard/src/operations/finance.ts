/** Balance transactions, report runs and the fee schedule. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const BalanceTransactionAmountsFragment = graphql(`
  fragment BalanceTransactionAmounts on BalanceTransaction {
    id
    type
    amountMoney {
      decimal
      currency
    }
    feeMoney {
      decimal
      currency
    }
    netMoney {
      decimal
      currency
    }
  }
`);

export const BalanceTransactionsDocument = graphql(`
  query BalanceTransactions($after: String, $filter: BalanceTransactionFilter) {
    balanceTransactions(first: 20, after: $after, filter: $filter) {
      nodes {
        ...BalanceTransactionAmounts
        status
        createdAt
        availableOn
        source {
          id
          type
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const ReportRunFieldsFragment = graphql(`
  fragment ReportRunFields on ReportRun {
    id
    reportType
    status
    error
    createdAt
    parameters {
      intervalStart
      intervalEnd
      currency
    }
    result {
      rows
      size
      url
    }
  }
`);

export const ReportRunsDocument = graphql(`
  query ReportRuns($after: String) {
    reportRuns(first: 10, after: $after) {
      nodes {
        ...ReportRunFields
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const ReportRunWatchDocument = graphql(`
  subscription ReportRunWatch($id: ID!, $after: String) {
    reportRun(id: $id, after: $after) {
      event {
        id
      }
      reportRun {
        ...ReportRunFields
      }
    }
  }
`);

export const FeeScheduleDocument = graphql(`
  query FeeSchedule {
    feeSchedule {
      taxBps
      payoutFixed
      updatedAt
      methods {
        paymentMethod
        percentBps
        fixed
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

export const CreateReportRunDocument = graphql(`
  mutation CreateReportRun($input: CreateReportRunInput!) {
    createReportRun(input: $input) {
      ...ReportRunFields
    }
  }
`);
