/** GraphQL types for API keys: views over the REST wire object. */
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import { NodeInterface } from '../../graphql/node';

export enum ApiKeyStatusEnum {
  ACTIVE = 'active',
  EXPIRING = 'expiring',
  EXPIRED = 'expired',
  REVOKED = 'revoked',
}
registerEnumType(ApiKeyStatusEnum, {
  name: 'ApiKeyStatus',
  description: 'ACTIVE; EXPIRING: rolled, works until expiresAt; EXPIRED: rolled and past its overlap; REVOKED.',
  valuesConfig: {
    ACTIVE: { description: 'Works.' },
    EXPIRING: { description: 'Rolled: works until expiresAt.' },
    EXPIRED: { description: 'Rolled and past its overlap: refused.' },
    REVOKED: { description: 'Revoked: refused.' },
  },
});

@ObjectType('ApiKey', {
  implements: NodeInterface,
  description: 'An API key pair of this merchant and environment; its secret is shown only when created or rolled.',
})
export class ApiKeyType {
  @Field(() => ID, { simple: true, description: 'key_...' }) id: string;
  @Field(() => EnvironmentEnum, { description: 'The environment the key acts in.', simple: true }) environment: EnvironmentEnum;
  @Field(() => String, { nullable: true, simple: true, description: 'The name given when the key was created; null when it was given none.' })
  name: string | null;
  @Field(() => String, { name: 'publicKey', description: 'pk_...: the username of HTTP Basic auth.' }) public_key: string;
  @Field(() => Boolean, { simple: true, description: 'A restricted key (rk_ secret) holds only its permissions.' }) restricted: boolean;
  @Field(() => [String], { nullable: true, simple: true, description: "A restricted key's grants (payout_intents:read, ...); null for a full key." })
  permissions: string[] | null;
  @Field(() => ApiKeyStatusEnum, { description: 'Whether the key works.', simple: true }) status: ApiKeyStatusEnum;
  @Field(() => String, {
    name: 'secretKey',
    nullable: true,
    description: 'sk_... or rk_...: only in the createApiKey and rollApiKey answers (shown once, stored only as a digest); null elsewhere.',
  })
  secret_key?: string;
  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When it was created.' }) created_at: string;
  @Field(() => DateTimeScalar, { name: 'lastUsedAt', nullable: true, description: 'When it last authenticated a request, to the minute.' })
  last_used_at: string | null;
  @Field(() => DateTimeScalar, { name: 'expiresAt', nullable: true, description: 'A rolled key: the end of its overlap.' }) expires_at: string | null;
  @Field(() => DateTimeScalar, { name: 'revokedAt', nullable: true, description: 'When it was revoked; null while it works.' }) revoked_at: string | null;
}

@InputType('CreateApiKeyInput', { description: 'A new API key.' })
export class CreateApiKeyInput {
  @Field(() => String, { nullable: true, description: 'A name people know the key by, 1 to 100 characters (a roll keeps it).' })
  name?: string;

  @Field(() => [String], {
    nullable: true,
    description:
      'A restricted key holding these grants (<resource>:read or <resource>:write); omitted: a full secret key. A member can give no more than their role may do.',
  })
  permissions?: string[];
}
