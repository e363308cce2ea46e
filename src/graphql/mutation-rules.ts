/**
 * The rules of a document with several mutations (docs/graphql.md, "Several mutations in one
 * document"). Each mutation field is nullable and runs on its own, in order: what one commits
 * stays in `data` whatever the next one does, and each failure is its own error with its
 * `path`. One Idempotency-Key names one operation's outcome, so a request that carries the
 * header with more than one mutation field is refused before anything runs: HTTP 400
 * `validation_error`, `param: "Idempotency-Key"` (send one mutation per keyed request).
 */
import { GraphQLError, Kind, OperationTypeNode, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import type { GqlContext } from './context';

/** The root fields an operation selects (fragments followed; `__typename` and directives not counted out). */
export function rootFieldCount(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const seen = new Set<string>();
  const count = (set: SelectionSetNode): number =>
    set.selections.reduce((n, selection) => {
      if (selection.kind === Kind.FIELD) return n + (selection.name.value === '__typename' ? 0 : 1);
      if (selection.kind === Kind.INLINE_FRAGMENT) return n + count(selection.selectionSet);
      const name = selection.name.value;
      if (seen.has(name)) return n;
      seen.add(name);
      const fragment = fragments.get(name);
      return n + (fragment ? count(fragment) : 0);
    }, 0);
  return count(operation.selectionSet);
}

export const ONE_MUTATION_PER_KEY =
  'An Idempotency-Key covers one mutation: this document has several. Send each keyed mutation in its own request, or send the document without the header.';

const listener: GraphQLRequestListener<GqlContext> = {
  didResolveOperation({ contextValue, document, operation }) {
    if (operation?.operation === OperationTypeNode.MUTATION && contextValue.idempotencyKey !== undefined && rootFieldCount(document, operation) > 1) {
      return Promise.reject(
        new GraphQLError(ONE_MUTATION_PER_KEY, { extensions: { code: 'validation_error', param: 'Idempotency-Key', http: { status: 400 } } }),
      );
    }
    return Promise.resolve();
  },
};

/** Refuses an Idempotency-Key over more than one mutation field. */
export const oneMutationPerKeyPlugin: ApolloServerPlugin<GqlContext> = {
  requestDidStart: () => Promise.resolve(listener),
};
