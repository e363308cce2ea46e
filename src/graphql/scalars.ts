import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** ISO 8601 instant in UTC with milliseconds (`2026-01-31T23:59:59.000Z`); inputs need an offset. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO 8601 date-time. Outputs are UTC with millisecond precision; inputs must carry an offset (Z or +hh:mm).',
  serialize(value) {
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'string') return new Date(value).toISOString();
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
