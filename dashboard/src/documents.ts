/**
 * Trusted documents: graphql-codegen registers every operation of the dashboard at build time
 * (persisted-documents.json, `sha256:<hex>` to text) and gives each generated document its id
 * (`__meta__.hash`). The dashboard sends the id, never the text; the server runs the
 * registered text (src/graphql/trusted-documents.ts).
 */
import type { TypedDocumentString } from './gql/graphql';

/** The registered id of a generated document. */
export function documentIdOf(doc: TypedDocumentString<unknown, never>): string {
  const id = doc.__meta__?.hash as unknown;
  if (typeof id !== 'string') throw new Error('A dashboard document without its registered id: build the dashboard with graphql-codegen.');
  return id;
}
