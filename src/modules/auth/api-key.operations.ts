/** The API key operations: what each parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import type { ApiKeyService } from './api-key.service';
import { CreateApiKeyBody, DEFAULT_OVERLAP_HOURS, EmptyBody, RollApiKeyBody } from './api-key.schemas';

type ById = { id: string };

export function apiKeyOperations(keys: ApiKeyService) {
  return {
    create: defineOperation({
      name: 'api_key.create',
      label: 'POST /v1/api_keys',
      ...withBody(CreateApiKeyBody, (body) => ({
        permissions: body.permissions ? body.permissions.map((p) => p.trim()) : null,
        name: body.name?.trim() || null,
      })),
      execute: (tx, ctx, input) => keys.create(tx, ctx, input),
    }),
    roll: defineOperation({
      name: 'api_key.roll',
      label: 'POST /v1/api_keys/:id/roll',
      ...withBody(RollApiKeyBody, (body, { id }: ById) => ({ id, overlapHours: body.overlap_hours ?? DEFAULT_OVERLAP_HOURS })),
      execute: (tx, ctx, input) => keys.roll(tx, ctx, input),
    }),
    revoke: defineOperation({
      name: 'api_key.revoke',
      label: 'POST /v1/api_keys/:id/revoke',
      ...withBody(EmptyBody, (_body, { id }: ById) => ({ id })),
      execute: (tx, ctx, { id }) => keys.revoke(tx, ctx, id),
    }),
  };
}
