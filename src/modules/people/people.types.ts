/** GraphQL types of a merchant's team, the signed-in member and their sessions. */
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import { MerchantType } from '../auth/viewer.resolver';
import { NodeInterface } from '../../graphql/node';

export enum RoleEnum {
  OWNER = 'owner',
  ADMIN = 'admin',
  DEVELOPER = 'developer',
  FINANCE = 'finance',
  VIEWER = 'viewer',
}
registerEnumType(RoleEnum, {
  name: 'Role',
  description: "A member's role in a merchant (docs/team-access.md has what each may do).",
  valuesConfig: {
    OWNER: { description: 'Everything, including members, owners and approval policies.' },
    ADMIN: { description: 'Everything but owners and approval policies.' },
    DEVELOPER: { description: 'API keys, webhooks and events; reads everything; moves no money.' },
    FINANCE: { description: 'Payouts, approvals, refunds, topups, balances and reports; no keys or webhooks.' },
    VIEWER: { description: 'Reads only.' },
  },
});

@ObjectType('TeamMember', { implements: NodeInterface, description: 'A person in the merchant\u2019s team.' })
export class TeamMemberType {
  @Field(() => ID, { description: 'The user id (`usr_...`).' }) id: string;
  @Field(() => String, { description: 'Their email address.' }) email: string;
  @Field(() => String, { nullable: true, description: 'The name they chose, if any.' }) displayName: string | null;
  @Field(() => RoleEnum, { description: 'Their role in this merchant.' }) role: RoleEnum;
  @Field(() => Boolean, { description: 'Whether they have chosen a password (used their setup link).' }) active: boolean;
  @Field(() => Boolean, { description: 'Whether they sign in with an authenticator code.' }) totpEnabled: boolean;
  @Field(() => DateTimeScalar, { description: 'When they joined this merchant.' }) joinedAt: Date;
}

@ObjectType('MerchantMembership', { description: 'A merchant the signed-in person belongs to, and their role there.' })
export class MerchantMembershipType {
  @Field(() => MerchantType, { description: 'The merchant.' }) merchant: MerchantType;
  @Field(() => RoleEnum, { description: 'Their role in it.' }) role: RoleEnum;
}

@ObjectType('Me', { description: 'The signed-in member: who they are, where they are acting and what else they may switch to.' })
export class MeType {
  @Field(() => ID, { description: 'The user id (`usr_...`).' }) id: string;
  @Field(() => String, { description: 'Their email address.' }) email: string;
  @Field(() => String, { nullable: true, description: 'The name they chose, if any.' }) displayName: string | null;
  @Field(() => RoleEnum, { description: 'Their role in the current merchant.' }) role: RoleEnum;
  @Field(() => MerchantType, { description: 'The merchant the session acts on.' }) merchant: MerchantType;
  @Field(() => EnvironmentEnum, { description: 'The environment the session acts in.' }) environment: EnvironmentEnum;
  @Field(() => Boolean, { description: 'Whether an authenticator is set up.' }) totpEnabled: boolean;
  @Field(() => [MerchantMembershipType], { description: 'Every merchant they belong to (the switcher lists these).' }) memberships: MerchantMembershipType[];
  @Field(() => [String], {
    description: 'What their role grants here, as `<resource>:read` or `<resource>:write` (write includes read); resources they cannot reach are absent.',
  })
  permissions: string[];
  @Field(() => [String], { description: 'The team capabilities their role grants here: `members`, `owners`, `api_keys`, `approval_policies`.' })
  capabilities: string[];
}

@ObjectType('Invitation', { description: 'A new member; the setup link is shown here once.' })
export class InvitationType {
  @Field(() => ID, { description: 'The user id (`usr_...`).' }) userId: string;
  @Field(() => String, {
    nullable: true,
    description: 'The one-time link that lets them choose a password (valid 72 hours); null when they already have an account.',
  })
  setupUrl: string | null;
}

@ObjectType('SignInSession', { implements: NodeInterface, description: 'One of the signed-in person\u2019s open sessions.' })
export class SessionType {
  @Field(() => ID, { description: 'The session id (`ses_...`).' }) id: string;
  @Field(() => Boolean, { description: 'Whether this is the session making the request.' }) current: boolean;
  @Field(() => String, { nullable: true, description: 'The browser that signed in (its User-Agent).' }) userAgent: string | null;
  @Field(() => DateTimeScalar, { description: 'When it signed in.' }) createdAt: Date;
  @Field(() => DateTimeScalar, { description: 'When it was last used (to the minute).' }) lastSeenAt: Date;
  @Field(() => DateTimeScalar, { description: 'When it ends at the latest (the absolute timeout).' }) expiresAt: Date;
}

@ObjectType('TotpEnrolment', { description: 'A new authenticator secret, to scan or type into an authenticator app, then confirm.' })
export class TotpEnrolmentType {
  @Field(() => String, { description: 'The secret, base32.' }) secret: string;
  @Field(() => String, { description: 'The otpauth:// URI (what the QR code holds).' }) uri: string;
  @Field(() => String, { description: 'The URI as an SVG QR code.' }) qrSvg: string;
}

@ObjectType('TotpConfirmation', { description: 'The authenticator is on; the recovery codes are shown here once.' })
export class TotpConfirmationType {
  @Field(() => [String], { description: 'Ten single-use recovery codes: each signs in once in place of an authenticator code.' })
  recoveryCodes: string[];
}
