/** Relay connections: `edges { cursor node }`, `nodes`, `pageInfo`. Forward pagination (`first`/`after`). */
import { ClassType, Field, ObjectType } from 'type-graphql';
import type { Page } from '../domain/listing';

@ObjectType({ description: 'Where a page is in its list (Relay).' })
export class PageInfo {
  @Field(() => Boolean, { description: 'Whether another page follows: ask again with `after: endCursor`.', simple: true })
  hasNextPage: boolean;

  @Field(() => Boolean, { description: 'Always false: lists page forward only, newest first.', simple: true })
  hasPreviousPage: boolean;

  @Field(() => String, { nullable: true, description: 'The cursor of the first item; null for an empty page.', simple: true })
  startCursor: string | null;

  @Field(() => String, { nullable: true, description: 'The cursor of the last item: `after` of the next page; null for an empty page.', simple: true })
  endCursor: string | null;
}

export interface ConnectionShape<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
}

export function Connection<T extends object>(name: string, NodeType: ClassType<T>) {
  @ObjectType(`${name}Edge`, { description: `One ${name} of a page, with its cursor.` })
  class Edge {
    @Field(() => String, { description: 'Where this item is in the list: `after` for the page after it.', simple: true })
    cursor: string;

    @Field(() => NodeType, { description: `The ${name}.`, simple: true })
    node: T;
  }

  @ObjectType(`${name}Connection`, { description: `A page of ${name} records (Relay connection), newest first.` })
  class ConnectionType implements ConnectionShape<T> {
    @Field(() => [Edge], { description: 'The items of the page, each with its cursor.', simple: true })
    edges: Edge[];

    @Field(() => [NodeType], { description: 'The items of the page (the edges without cursors).', simple: true })
    nodes: T[];

    @Field(() => PageInfo, { description: 'Whether another page follows, and its cursor.', simple: true })
    pageInfo: PageInfo;
  }
  return ConnectionType;
}

export function toConnection<T>(page: Page<T>): ConnectionShape<T> {
  const last = page.data.length - 1;
  return {
    // Edges are built only if the query selects them (most select `nodes`), and an edge's
    // cursor is encoded only if the query selects it.
    get edges() {
      return page.data.map((node, i) => ({
        get cursor() {
          return page.cursorAt(i);
        },
        node,
      }));
    },
    nodes: page.data,
    pageInfo: {
      hasNextPage: page.hasMore,
      hasPreviousPage: false,
      get startCursor() {
        return last >= 0 ? page.cursorAt(0) : null;
      },
      get endCursor() {
        return last >= 0 ? page.cursorAt(last) : null;
      },
    },
  };
}

/** GraphQL list arguments mapped onto the REST query names, so one parser validates both. */
export function listQuery(first: number | undefined, after: string | undefined, filter?: Record<string, unknown>): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  if (first !== undefined && first !== null) query.limit = String(first);
  if (after !== undefined && after !== null) query.cursor = after;
  for (const [key, value] of Object.entries(filter ?? {})) {
    if (value === undefined || value === null) continue;
    query[key] = Array.isArray(value) ? value.join(',') : value;
  }
  return query;
}
