/**
 * Several records of one merchant and environment by id, in one statement: the batch of a
 * DataLoader (node(id:), nodes(ids:), relations). An id that does not have the exact shape of
 * its kind is never sent to the database (docs: ids), and ids of another scope are not found.
 */
import { In, type EntityTarget, type FindOptionsWhere } from 'typeorm';
import { isId, type IdKind } from '../domain/ids';
import type { Environment, Scope } from '../domain/scope';
import type { Db } from './db';

/** An entity that belongs to a merchant and environment. */
export interface Scoped {
  id: string;
  merchantId: string;
  environment: Environment;
}

/** The records of `scope` among `ids`, by id; unknown, foreign and malformed ids are left out. */
export async function findManyInScope<E extends Scoped>(
  db: Db,
  entity: EntityTarget<E>,
  kind: IdKind,
  scope: Scope,
  ids: readonly string[],
): Promise<Map<string, E>> {
  const wellFormed = [...new Set(ids.filter((id) => isId(kind, id)))];
  if (wellFormed.length === 0) return new Map();
  const where = { id: In(wellFormed), merchantId: scope.merchantId, environment: scope.environment } as FindOptionsWhere<E>;
  const rows = await db.read((em) => em.findBy(entity, where));
  return new Map(rows.map((row) => [row.id, row]));
}
