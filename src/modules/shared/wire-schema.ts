/**
 * Building blocks for the schemas of wire records whose TypeScript types are derived from
 * them (`Static<typeof XSchema>`). They emit the same JSON Schema as `Type.Union` of
 * literals and `Type.Ref`, and keep the precise static type that those lose: a union of the
 * listed strings (not `string`), and the referenced record (not `unknown`).
 */
import { Type, type SchemaOptions, type Static, type TLiteral, type TSchema, type TUnion, type TUnsafe } from '@sinclair/typebox';

/** One of these strings: `{ anyOf: [{ const }, ...] }`, typed as their union. */
export function Literals<const V extends readonly string[]>(values: V): TUnion<TLiteral<V[number]>[]> {
  return Type.Union(values.map((v) => Type.Literal(v)));
}

/** `{ $ref: <the record's $id> }`, typed as the record it names. */
export function RefTo<T extends TSchema>(record: T, options?: SchemaOptions): TUnsafe<Static<T>> {
  if (typeof record.$id !== 'string') throw new Error('RefTo: the referenced schema has no $id');
  return Type.Unsafe<Static<T>>(Type.Ref(record.$id, options));
}
