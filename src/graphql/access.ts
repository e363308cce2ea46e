/**
 * Permissions on the GraphQL surface: each root field (query, mutation, subscription)
 * declares what it needs with `@Needs(...)` (a field extension, so the declaration is part of
 * the built schema); one middleware asks `authorize` before any resolver with a declaration
 * runs, and the schema refuses to build when a root field has none. Nested fields that reach
 * another resource (`PaymentIntent.refunds`) may declare too, and are checked the same way.
 */
import { OperationTypeNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { Extensions, type MiddlewareFn } from 'type-graphql';
import { authorize, isRequirement, type Requirement } from '../domain/access';
import type { GqlContext } from './context';

/** Declares what the caller needs to resolve this field. */
export const Needs = (needed: Requirement): MethodDecorator & PropertyDecorator => Extensions({ permission: needed });

/** The requirement a field declares, if any. */
export function requirementOf(field: Pick<GraphQLField<unknown, unknown>, 'extensions'> | undefined): Requirement | undefined {
  const declared = field?.extensions?.permission;
  return isRequirement(declared) ? declared : undefined;
}

/** type-graphql global middleware: refuses a declared field the caller may not resolve (403 permission_denied in `extensions.code`). */
export const checkPermission: MiddlewareFn<GqlContext> = ({ info, context }, next) => {
  // Mutation root fields run one after the other: the one running now is the one `mutate` reports on.
  if (info.operation.operation === OperationTypeNode.MUTATION && info.path.prev === undefined) context.mutationField = String(info.path.key);
  const needed = requirementOf(info.parentType.getFields()[info.fieldName]);
  if (needed) authorize(context.ctx.principal, needed, context.ctx.log, `graphql ${info.parentType.name}.${info.fieldName}`);
  return next();
};

/** Every root field with its declaration; throws when one has none (the server then does not start). */
export function rootRequirements(schema: GraphQLSchema): { type: string; field: string; needed: Requirement }[] {
  const out: { type: string; field: string; needed: Requirement }[] = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const needed = requirementOf(field);
      if (!needed) throw new Error(`GraphQL field ${type.name}.${field.name} declares no permission (@Needs, src/graphql/access.ts)`);
      out.push({ type: type.name, field: field.name, needed });
    }
  }
  return out;
}
