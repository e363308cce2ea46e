/** Balance transactions and report runs. GraphQL Code Generator types each document. */
import { graphql } from '../gql';

export const BalanceTransactionsDocument = graphql(`
  query BalanceTransactions($after: String, $filter: BalanceTransactionFilter) {
    balanceTransactions(first: 20, after: $after, filter: $filter) {
      nodes {
        id
        type
        status
        createdAt
        availableOn
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

export const ReportRunDocument = graphql(`
  query ReportRun($id: ID!) {
    reportRun(id: $id) {
      ...ReportRunFields
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
