/** GraphQL for API keys: translate GraphQL <-> ApiKeyService, nothing more. */
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import { mutate } from '../../graphql/errors';
import type { apiKeyOperations } from './api-key.operations';
import type { ApiKeyService } from './api-key.service';
import type { ApiKeyWire } from './api-key.schemas';
import { ApiKeyType, CreateApiKeyInput } from './api-key.types';

@Resolver(() => ApiKeyType)
export class ApiKeyResolver {
  constructor(private readonly services: { apiKeys: ApiKeyService; keyOps: ReturnType<typeof apiKeyOperations> }) {}

  @Needs('api_keys')
  @Query(() => [ApiKeyType], { nullable: true, description: 'The API keys of this merchant and environment, newest first, with when each was last used.' })
  apiKeys(@Ctx() { ctx }: GqlContext): Promise<ApiKeyWire[]> {
    return this.services.apiKeys.list(ctx);
  }

  @Needs('api_keys')
  @Mutation(() => ApiKeyType, {
    nullable: true,
    description: "Creates a key in the caller's environment; `secretKey` is in this answer only. Honors the Idempotency-Key header.",
  })
  async createApiKey(
    @Arg('input', () => CreateApiKeyInput, { nullable: true, description: 'The fields of the request.' }) input: CreateApiKeyInput | undefined,
    @Ctx() gql: GqlContext,
  ) {
    const body = { ...(input?.permissions ? { permissions: input.permissions } : {}), ...(typeof input?.name === 'string' ? { name: input.name } : {}) };
    return mutate(gql, this.services.keyOps.create, body, {});
  }

  @Needs('api_keys')
  @Mutation(() => ApiKeyType, {
    nullable: true,
    description:
      'Replaces a key: the answer is a new key with the same permissions (its `secretKey` shown this once), working at once; the old key works for `overlapHours` more (0 to 168, default 24), then is refused. Honors the Idempotency-Key header.',
  })
  async rollApiKey(
    @Arg('id', () => ID, { description: "The record's id." }) id: string,
    @Arg('overlapHours', () => Int, { nullable: true, description: 'How long the old secret keeps working, in hours (0 to 168, default 24).' })
    overlapHours: number | undefined,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.keyOps.roll, overlapHours === undefined || overlapHours === null ? {} : { overlap_hours: overlapHours }, { id }, '');
  }

  @Needs('api_keys')
  @Mutation(() => ApiKeyType, { nullable: true, description: 'Revokes a key at once: requests with it are refused and its subscriptions close.' })
  async revokeApiKey(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.keyOps.revoke, {}, { id }, '');
  }
}
