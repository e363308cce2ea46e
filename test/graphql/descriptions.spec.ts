/**
 * Every type, field, argument and enum value of the schema carries a description
 * (docs/graphql.md, "Deprecation and breaking changes"): the schema is the API's reference.
 */
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { buildGraphQLSchema } from '../../src/graphql/schema';

/** Every schema element without a description: `Type`, `Type.field`, `Type.field(arg)`, `Enum.VALUE`. */
export function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    if (!type.description) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
  }
  return missing;
}

test('every type, field, argument and enum value has a description', () => {
  expect(undescribed(buildGraphQLSchema())).toEqual([]);
});

test('the check sees a missing description at each level', () => {
  const schema = buildSchema(`
    "A" type Query { "f" f(x: Int): E g: String }
    enum E { "one" ONE TWO }`);
  expect(undescribed(schema).sort()).toEqual(['E', 'E.TWO', 'Query.f(x)', 'Query.g'].sort());
});
