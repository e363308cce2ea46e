/**
 * The query cost limit (docs/graphql.md, "Query cost"), measured by graphql-armor's cost rule on
 * the operation as it will run: a page size passed in a variable, or left to the argument's
 * default, counts as its value (graphql-armor alone reads only literal `first`/`last`, so
 * `first: $n` and an omitted `first` counted as one item). Every answer carries
 * `extensions.cost { requestedQueryCost, actualQueryCost, maximumQueryCost }` (Shopify's names);
 * an operation over the limit is refused before it runs, HTTP 400 `query_too_complex`.
 */
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import type { GqlContext } from './context';

/**
 * Each object (a record, a Money, a connection, an edge) costs 1 and scalars nothing; a list
 * field with `first`/`last` multiplies what it selects by that page size (a connection at
 * `first: 100` selecting `nodes { id amountMoney { decimal } }` costs (1 + 1 + 1) × 100).
 */
export const QUERY_COST = { objectCost: 1, scalarCost: 0, depthCostFactor: 1, maxCost: 5000 } as const;

export interface QueryCost {
  requestedQueryCost: number;
  actualQueryCost: number;
  maximumQueryCost: number;
}

/** graphql-armor's cost rule, with the limit left to `requestedCost`'s caller: it only measures. */
function measuringRule(record: (n: number) => void) {
  const { validationRules } = new ApolloArmor({
    costLimit: {
      objectCost: QUERY_COST.objectCost,
      scalarCost: QUERY_COST.scalarCost,
      depthCostFactor: QUERY_COST.depthCostFactor,
      maxCost: Number.MAX_SAFE_INTEGER,
      onAccept: [(_ctx, { n }: { n: number }) => record(n)],
    },
    maxDepth: { enabled: false },
    maxAliases: { enabled: false },
    maxDirectives: { enabled: false },
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: false },
  }).protect();
  return validationRules;
}

const PAGE_ARGS = ['first', 'last'];

function intOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * The operation with every page size written out: `first: $n` becomes `first: <n's value>`, and a
 * list field without `first`/`last` whose `first` has a default gets it (`payoutIntents` -> 25).
 */
export function withPageSizes(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  const defaults = new Map<string, ValueNode | undefined>();
  for (const def of document.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION) for (const v of def.variableDefinitions ?? []) defaults.set(v.variable.name.value, v.defaultValue);
  }
  const sizeOf = (value: ValueNode): number | undefined => {
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind !== Kind.VARIABLE) return undefined;
    const given = intOf(variables[value.name.value]);
    if (given !== undefined) return given;
    const fallback = defaults.get(value.name.value);
    return fallback?.kind === Kind.INT ? Number(fallback.value) : undefined;
  };
  const intNode = (n: number): ValueNode => ({ kind: Kind.INT, value: String(n) });
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode): FieldNode | undefined {
        const def = typeInfo.getFieldDef();
        if (!def || !def.args.some((a) => PAGE_ARGS.includes(a.name))) return undefined;
        const given = (node.arguments ?? []).filter((a) => PAGE_ARGS.includes(a.name.value));
        if (given.length > 0) {
          const args = (node.arguments ?? []).map((a): ArgumentNode => {
            if (!PAGE_ARGS.includes(a.name.value) || a.value.kind === Kind.INT) return a;
            const argDefault = intOf(def.args.find((d) => d.name === a.name.value)?.defaultValue);
            const n = sizeOf(a.value) ?? argDefault;
            return n === undefined ? a : { ...a, value: intNode(n) };
          });
          return { ...node, arguments: args };
        }
        const first = intOf(def.args.find((a) => a.name === 'first')?.defaultValue);
        if (first === undefined) return undefined;
        const arg: ArgumentNode = { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'first' }, value: intNode(first) };
        return { ...node, arguments: [...(node.arguments ?? []), arg] };
      },
    }),
  );
}

/**
 * Costs already measured, per document: Apollo and the graphql-ws server hand every request with
 * the same text the same parsed document, and a document's cost changes only with the operation
 * chosen and the values of the variables its page sizes read. Measuring walks and validates the
 * whole document (about a tenth of a 25-row GraphQL list's CPU), so each answer is kept.
 */
interface KnownCosts {
  schema: GraphQLSchema;
  /** The variables given as a `first`/`last` argument anywhere in the document. */
  pageVariables: string[];
  costs: Map<string, number>;
}
const knownCosts = new WeakMap<DocumentNode, KnownCosts>();
/** Costs kept per document; a document used with more page-size combinations is measured each time. */
const COSTS_PER_DOCUMENT = 64;

function pageVariablesOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(node) {
      if (PAGE_ARGS.includes(node.name.value) && node.value.kind === Kind.VARIABLE) names.add(node.value.name.value);
    },
  });
  return [...names];
}

/** The cost of `operationName`'s operation (or the only one) in `document`, with these variables. */
export function requestedCost(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown>, operationName?: string | null): number {
  let known = knownCosts.get(document);
  if (known?.schema !== schema) {
    known = { schema, pageVariables: pageVariablesOf(document), costs: new Map() };
    knownCosts.set(document, known);
  }
  const key = JSON.stringify([operationName ?? null, ...known.pageVariables.map((name) => variables?.[name] ?? null)]);
  let cost = known.costs.get(key);
  if (cost === undefined) {
    cost = measuredCost(schema, document, variables, operationName);
    if (known.costs.size < COSTS_PER_DOCUMENT) known.costs.set(key, cost);
  }
  return cost;
}

function measuredCost(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown>, operationName?: string | null): number {
  const explicit = withPageSizes(schema, document, variables);
  // Only the operation that runs is measured (armor's rule measures each operation it meets).
  const chosen = explicit.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || !operationName || d.name?.value === operationName);
  let cost = 0;
  validate(
    schema,
    { ...explicit, definitions: chosen },
    measuringRule((n) => (cost = Math.max(cost, n))),
  );
  return cost;
}

/** What the answer holds, at the same prices: each object 1 (list items each), scalars nothing. */
export function actualCost(data: unknown): number {
  let cost = 0;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (typeof value === 'object' && value !== null) {
      cost += QUERY_COST.objectCost;
      // An answer's objects are plain (no inherited keys); Object.values would copy each.
      for (const key in value) walk((value as Record<string, unknown>)[key]);
    } else if (value !== null && value !== undefined) {
      cost += QUERY_COST.scalarCost;
    }
  };
  if (typeof data === 'object' && data !== null) for (const child of Object.values(data)) walk(child);
  return cost;
}

/** The requested cost of each request, from when its operation is known until its answer is sent. */
const requested = new WeakMap<object, number>();

const costListener: GraphQLRequestListener<GqlContext> = {
  didResolveOperation({ contextValue, document, request, schema, operationName }) {
    const n = requestedCost(schema, document, request.variables ?? undefined, operationName);
    requested.set(contextValue, n);
    if (n > QUERY_COST.maxCost) {
      return Promise.reject(
        new GraphQLError(
          `This operation costs ${n}, over the limit of ${QUERY_COST.maxCost}: ask for fewer items (first/last) or fewer nested lists, or split it.`,
          { extensions: { code: 'query_too_complex', http: { status: 400 } } },
        ),
      );
    }
    return Promise.resolve();
  },
  willSendResponse({ contextValue, response }) {
    const n = requested.get(contextValue);
    if (n === undefined || response.body.kind !== 'single') return Promise.resolve();
    const result = response.body.singleResult;
    const cost: QueryCost = {
      requestedQueryCost: n,
      actualQueryCost: n > QUERY_COST.maxCost ? 0 : actualCost(result.data),
      maximumQueryCost: QUERY_COST.maxCost,
    };
    result.extensions = { ...result.extensions, cost };
    return Promise.resolve();
  },
};

/** The Apollo plugin: the limit before execution, `extensions.cost` on every answer. */
export const queryCostPlugin: ApolloServerPlugin<GqlContext> = {
  requestDidStart: () => Promise.resolve(costListener),
};
