import type { Page } from '../domain/listing';

/** The REST page envelope of payments-api.md: data, has_more, next_cursor (null on the last page). */
export function pageEnvelope<T>(page: Page<T>): { data: T[]; has_more: boolean; next_cursor: string | null } {
  return { data: page.data, has_more: page.hasMore, next_cursor: page.nextCursor };
}
