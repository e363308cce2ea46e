/**
 * Compiled execution for GraphQL over HTTP: queries run as graphql-jit programs compiled
 * once per document, behind Apollo Server's executor hook (a `gateway` whose `load()`
 * returns the one, local schema and this executor). Apollo still parses, validates (the
 * armor limits included), runs every plugin hook and formats errors; only `execute` is
 * replaced. Mutations, queries that select an interface or union (selectsAbstractType), and any
 * query graphql-jit cannot compile run on graphql-js's `execute` exactly as before. Subscriptions are not served over HTTP (ws.ts keeps graphql-js).
 */
import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  DocumentNode,
  execute,
  ExecutionResult,
  getNamedType,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  isAbstractType,
  OperationTypeNode,
  printSchema,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** Compiled programs kept (most recently used); a document not kept is compiled again. */
export const COMPILED_QUERY_CACHE_SIZE = 500;
/**
 * A document is compiled on its second execution: compiling costs far more than one
 * graphql-js run, so a stream of one-off documents (each new) never pays for it.
 */
export const COMPILE_ON_EXECUTION = 2;

/** A small LRU: a Map's insertion order is its recency order. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  get size(): number {
    return this.map.size;
  }
}

/**
 * graphql-jit's errors are GraphQLErrors whose properties are read-only; plugins (graphql-armor's
 * field-suggestion filter) rewrite `message` in place. The same error as graphql-js builds it.
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  if (error.constructor === GraphQLError) return error;
  const copy = new GraphQLError(error.message, { path: error.path, originalError: error.originalError, extensions: error.extensions });
  (copy as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return copy;
}

/**
 * Whether a document selects a field of an interface or union type (`node`, `nodes`,
 * `Event.resource`, `NextAction` branches): such documents run on graphql-js. graphql-jit
 * resolves abstract types through `isTypeOf`/`resolveType` differently from graphql-js (it
 * calls type-graphql's asynchronous `resolveType` in ways that do not always await it), so
 * they are not compiled; test/graphql/jit-executor.suite.ts checks both give the same answer.
 */
export function selectsAbstractType(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const type = typeInfo.getType();
        if (type && isAbstractType(getNamedType(type))) found = true;
      },
      InlineFragment() {
        const type = typeInfo.getType();
        if (type && isAbstractType(getNamedType(type))) found = true;
      },
    }),
  );
  return found;
}

export interface JitStats {
  compiled: number;
  fallbacks: number;
  cached: number;
}

/** Apollo's executor hook with graphql-jit for queries; `stats` for tests. */
export function jitGateway(
  schema: GraphQLSchema,
  { cacheSize = COMPILED_QUERY_CACHE_SIZE, compileOn = COMPILE_ON_EXECUTION } = {},
): GatewayInterface & { stats(): JitStats } {
  /** A program; `null`: graphql-jit refused this operation (graphql-js runs it); a number: executions so far, not compiled yet. */
  const programs = new Lru<CompiledQuery | null | number>(cacheSize);
  const listeners = new Set<Parameters<GatewayInterface['onSchemaLoadOrUpdate']>[0]>();
  let compiled = 0;
  let fallbacks = 0;

  const executor: GatewayExecutor = async (rc) => {
    const { document, operation, request } = rc;
    const operationName = request.operationName ?? undefined;
    const variables = request.variables ?? {};
    const graphqlJs = () => execute({ schema, document, contextValue: rc.context, variableValues: variables, operationName }) as Promise<ExecutionResult>;
    // No operation (several and no or an unknown operationName): graphql-js reports it, and
    // Apollo turns that report into its OPERATION_RESOLUTION_FAILURE answer.
    if (!operation || operation.operation !== OperationTypeNode.QUERY) return graphqlJs();

    const key = rc.queryHash ? `${rc.queryHash}:${operationName ?? ''}` : undefined;
    let program = key === undefined ? undefined : programs.get(key);
    if (program === undefined || typeof program === 'number') {
      const executions = (program ?? 0) + 1;
      if (executions < compileOn || key === undefined) {
        if (key !== undefined) programs.set(key, executions);
        return graphqlJs();
      }
      let result: CompiledQuery | ExecutionResult | undefined;
      try {
        result = selectsAbstractType(schema, document) ? undefined : compileQuery(schema, document, operationName);
      } catch {
        result = undefined;
      }
      program = result && isCompiledQuery(result) ? result : null;
      if (program) compiled++;
      else fallbacks++;
      programs.set(key, program);
    }
    if (program === null) return graphqlJs();

    // Variables are coerced by graphql-js first, so that a bad variable is refused with
    // graphql-js's own error (its message and `nodes`, which Apollo needs to answer 400
    // BAD_USER_INPUT); graphql-jit then coerces the same raw values again.
    if (operation.variableDefinitions?.length) {
      const coerced = getVariableValues(schema, operation.variableDefinitions, variables, { maxErrors: 50 });
      if (coerced.errors) return { errors: coerced.errors };
    }
    const result = (await program.query(undefined, rc.context, variables)) as ExecutionResult;
    // graphql-js's key order (`errors` before `data`), as Apollo's in-process API returns it.
    if (result.errors)
      return {
        errors: result.errors.map(asGraphQLJsError),
        data: result.data,
        ...(result.extensions ? { extensions: result.extensions } : {}),
      };
    return result;
  };

  return {
    load() {
      const sdl = printSchema(schema);
      for (const listener of listeners) listener({ apiSchema: schema, coreSupergraphSdl: sdl });
      return Promise.resolve({ schema, executor });
    },
    onSchemaLoadOrUpdate(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      listeners.clear();
      return Promise.resolve();
    },
    stats: () => ({ compiled, fallbacks, cached: programs.size }),
  };
}
