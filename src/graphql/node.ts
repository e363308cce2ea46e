/**
 * Identity for caches (Relay's Global Object Identification): every record with an id
 * implements `Node`, and `node(id:)` / `nodes(ids:)` find any of them by id alone. Ids are
 * already global: each kind has its own prefix (`po_…`, `pi_…`; derived ids such as
 * `bal_test_THB` too). A record type becomes a Node in two lines (docs/graphql.md):
 *
 *     @ObjectType('PayoutIntent', { implements: NodeInterface })         // the type
 *     registerNode('po', PayoutIntentType, (loaders, id) => loaders.payoutIntent.load(id), 'payout_intents:read'); // its module
 *
 * The loader reads through the request's DataLoaders, so it is scoped to the caller's
 * merchant and environment like every lookup: another merchant's id is not found.
 */
import 'reflect-metadata';
import { Field, ID, InterfaceType } from 'type-graphql';
import { isRequirement, type Requirement } from '../domain/access';
import type { RequestContext } from '../domain/scope';
import type { Loaders } from './context';

/** Loads one record of a Node type by id for the calling merchant and environment; null when not found. */
export type NodeLoader = (loaders: Loaders, id: string, ctx: RequestContext) => Promise<object | null | undefined>;

/** A GraphQL object type class. */
export type ObjectTypeClass = abstract new (...args: never[]) => object;

interface NodeKind {
  type: ObjectTypeClass;
  load: NodeLoader;
  /** What reading one through `node(id:)` needs: what the record's own query asks. */
  needs: Requirement;
}

const KINDS = new Map<string, NodeKind>();

/** The prefix of an id: what precedes its first underscore (`po` of `po_01j…`). */
export function idPrefix(id: string): string {
  const at = id.indexOf('_');
  return at > 0 ? id.slice(0, at) : '';
}

/**
 * Makes the records whose ids start with `prefix_` findable by `node(id:)`: `type` is their
 * GraphQL object type class (which must declare `implements: NodeInterface`), `load` reads one,
 * `needs` is what the caller must hold: the same requirement as the record's own query
 * (`payout_batches:read` as `payoutBatch(id:)`; an audit entry `events:read`, an API key the
 * `api_keys` capability). It is required, so a new Node type cannot forget it;
 * test/graphql/node-permissions.suite.ts compares every kind with its own query.
 */
export function registerNode(prefix: string, type: ObjectTypeClass, load: NodeLoader, needs: Requirement): void {
  if (!isRequirement(needs)) throw new Error(`id prefix ${prefix}_ needs a permission for node(id:)`);
  const known = KINDS.get(prefix);
  if (known && known.type !== type) throw new Error(`id prefix ${prefix}_ is already registered for ${known.type.name}`);
  KINDS.set(prefix, { type, load, needs });
}

/** The registered kind of an id, if any. */
export function nodeKindOf(id: string): NodeKind | undefined {
  return KINDS.get(idPrefix(id));
}

/** Every registered prefix, for tests and docs. */
export function nodePrefixes(): string[] {
  return [...KINDS.keys()].sort();
}

/** The GraphQL type class of a record with an id (by its prefix), for `Node` and the unions that hold records. */
export function nodeTypeOf(record: unknown): ObjectTypeClass | undefined {
  const id = (record as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? nodeKindOf(id)?.type : undefined;
}

@InterfaceType('Node', {
  description: 'A record with a global id: `node(id:)` finds it again, and a client cache can key it by `id`.',
  resolveType: (record: unknown) => nodeTypeOf(record) as (new () => object) | undefined,
})
export abstract class NodeInterface {
  @Field(() => ID, { simple: true, description: 'The global id: unique across every record type (its prefix names the type).' })
  id: string;
}
