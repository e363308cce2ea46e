import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { isoInstant } from '../domain/instant';

/** What `Date.prototype.toISOString()` prints for years 0000-9999: serialized unchanged. */
const CANONICAL_INSTANT = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** ISO 8601 instant in UTC with milliseconds (`2026-01-31T23:59:59.000Z`); inputs need an offset. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO 8601 date-time. Outputs are UTC with millisecond precision; inputs must carry an offset (Z or +hh:mm).',
  serialize(value) {
    if (value instanceof Date) return isoInstant(value);
    // The wire records already hold `toISOString()` output: passed through as is, not re-parsed.
    if (typeof value === 'string') return CANONICAL_INSTANT.test(value) ? value : new Date(value).toISOString();
    throw new GraphQLError('DateTime cannot represent this value');
  },
  parseValue(value) {
    if (typeof value !== 'string') throw new GraphQLError('DateTime must be a string');
    return value;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
    return ast.value;
  },
});
