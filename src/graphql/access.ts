/**
 * Permissions on the GraphQL surface: each root field (query, mutation, subscription)
 * declares what it needs with `@Needs(...)`: a field extension (so the declaration is part of
 * the built schema) and a middleware on that field only, and the schema refuses to build when
 * a root field has none. Nested fields that reach another resource (`PaymentIntent.refunds`)
 * may declare too. The caller's principal is fixed for an operation, so the answer is decided
 * once per field definition per operation and kept on the context: a page of 100 rows costs
 * the same one check as a page of one, and a refused field is refused at every path it
 * appears, with the same error, as if asked each time. Undeclared fields carry no middleware.
 */
import { OperationTypeNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { Extensions, UseMiddleware, type MiddlewareFn } from 'type-graphql';
import { allows, authorize, isRequirement, permissionDenied, type Requirement } from '../domain/access';
import type { GqlContext } from './context';

/** Decisions made by this process (one per declared field definition per operation); read by tests. */
let decisions = 0;
export const permissionDecisions = (): number => decisions;

/** Refuses a declared field the caller may not resolve (403 permission_denied in `extensions.code`), deciding once per operation. */
const checkPermission: MiddlewareFn<GqlContext> = ({ info, context }, next) => {
  // Mutation root fields run one after the other: the one running now is the one `mutate` reports on.
  if (info.operation.operation === OperationTypeNode.MUTATION && info.path.prev === undefined) context.mutationField = String(info.path.key);
  const field = info.parentType.getFields()[info.fieldName];
  const needed = requirementOf(field);
  if (!needed) return next();
  const permissions = (context.permissions ??= new Map<object, boolean>());
  let allowed = permissions.get(field);
  if (allowed === undefined) {
    decisions++;
    allowed = allows(context.ctx.principal, needed);
    permissions.set(field, allowed);
    // The refusal is logged and counted once per field and operation, where it was decided.
    if (!allowed) authorize(context.ctx.principal, needed, context.ctx.log, `graphql ${info.parentType.name}.${info.fieldName}`);
  }
  if (!allowed) throw permissionDenied(needed);
  return next();
};

/** Declares what the caller needs to resolve this field. */
export const Needs =
  (needed: Requirement): MethodDecorator & PropertyDecorator =>
  (target: object, key: string | symbol, descriptor?: PropertyDescriptor) => {
    Extensions({ permission: needed })(target, key, descriptor as TypedPropertyDescriptor<unknown>);
    UseMiddleware(checkPermission)(target, key, descriptor as TypedPropertyDescriptor<unknown>);
  };

/** The requirement a field declares, if any. */
export function requirementOf(field: Pick<GraphQLField<unknown, unknown>, 'extensions'> | undefined): Requirement | undefined {
  const declared = field?.extensions?.permission;
  return isRequirement(declared) ? declared : undefined;
}

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
