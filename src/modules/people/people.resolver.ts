/**
 * GraphQL for the team and the signed-in member: translate GraphQL <-> the people services,
 * nothing more. Everything here needs a signed-in member (an API key is refused with
 * permission_denied, `me` answers null for it); the role rules are the services'.
 */
import { Needs } from '../../graphql/access';
import QRCode from 'qrcode';
import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { ApiError } from '../../domain/errors';
import { RESOURCES, ROLE_GRANTS, type Role } from '../../domain/permissions';
import type { GqlContext } from '../../graphql/context';
import { withArgs } from '../../graphql/errors';
import { EnvironmentEnum } from '../../graphql/enums';
import { DateTimeScalar } from '../../graphql/scalars';
import type { RequestContext } from '../../domain/scope';
import type { AuthService } from '../auth/auth.service';
import type { SecondFactor } from './second-factor';
import type { SessionService, SignedIn } from './session.service';
import type { Member, TeamService } from './team.service';
import { InvitationType, MeType, RoleEnum, SessionType, TeamMemberType, TotpConfirmationType, TotpEnrolmentType } from './people.types';
import { User } from './people.entity';

/** A role's grants as `me` answers them (the dashboard hides what the role cannot do; the server refuses it anyway). */
function grantsForDisplay(role: Role): { permissions: string[]; capabilities: string[] } {
  const { resources, team } = ROLE_GRANTS[role];
  return {
    permissions: RESOURCES.filter((r) => resources[r] !== 'none').map((r) => `${r}:${resources[r]}`),
    capabilities: [...team],
  };
}

/** The signed-in member behind a request, or permission_denied for an API key. */
export function signedIn(ctx: RequestContext): SignedIn {
  if (ctx.principal.type !== 'member') throw new ApiError('permission_denied', 'This needs a signed-in member; API keys cannot manage the team.');
  return { sessionId: ctx.apiKeyId, merchantId: ctx.merchantId, environment: ctx.environment, principal: ctx.principal };
}

export function memberType({ user, membership }: Member): TeamMemberType {
  return {
    id: user.id,
    email: user.email,
    displayName: user.displayName,
    role: membership.role as RoleEnum,
    active: user.passwordHash !== null,
    totpEnabled: user.totpEnabledAt !== null,
    joinedAt: membership.createdAt,
  };
}

type Services = { team: TeamService; sessions: SessionService; secondFactor: SecondFactor; auth: AuthService };

@Resolver()
export class PeopleResolver {
  constructor(private readonly services: Services) {}

  @Needs('authenticated')
  @Query(() => MeType, { nullable: true, description: 'The signed-in member; null when the caller is an API key.' })
  async me(@Ctx() { ctx }: GqlContext): Promise<MeType | null> {
    if (ctx.principal.type !== 'member') return null;
    const memberships = await this.services.team.membershipsOf(ctx.principal.id);
    const merchants = await this.services.auth.merchantsByIds(memberships.map((m) => m.merchantId));
    const user: User = (await this.services.team.user(ctx.principal.id))!;
    return {
      id: user.id,
      email: user.email,
      displayName: user.displayName,
      role: ctx.principal.role as RoleEnum,
      merchant: merchants.get(ctx.merchantId)!,
      environment: ctx.environment as EnvironmentEnum,
      totpEnabled: user.totpEnabledAt !== null,
      memberships: memberships.filter((m) => merchants.has(m.merchantId)).map((m) => ({ merchant: merchants.get(m.merchantId)!, role: m.role as RoleEnum })),
      ...grantsForDisplay(ctx.principal.role),
    };
  }

  @Needs('authenticated')
  @Query(() => [TeamMemberType], { nullable: true, description: 'The members of the current merchant, oldest first.' })
  async teamMembers(@Ctx() { ctx }: GqlContext): Promise<TeamMemberType[]> {
    signedIn(ctx);
    return (await this.services.team.members(ctx.merchantId)).map(memberType);
  }

  @Needs('members')
  @Mutation(() => InvitationType, {
    nullable: true,
    description: 'Invites a person with a role (owners and admins; only an owner invites an owner). The setup link is answered once.',
  })
  inviteMember(
    @Ctx() { ctx }: GqlContext,
    @Arg('email', () => String, { description: 'Their email address.' }) email: string,
    @Arg('role', () => RoleEnum, { description: 'Their role.' }) role: RoleEnum,
  ): Promise<InvitationType> {
    return withArgs(async () => {
      const invited = await this.services.team.invite(signedIn(ctx).principal, ctx.merchantId, email, role, ctx);
      return { userId: invited.user_id, setupUrl: invited.setup_url };
    });
  }

  @Needs('members')
  @Mutation(() => InvitationType, {
    nullable: true,
    description:
      'A new one-time setup link for a member who has not set a password yet (owners and admins; only an owner for an owner); their earlier links stop working. Shown once.',
  })
  issueSetupLink(@Ctx() { ctx }: GqlContext, @Arg('userId', () => ID, { description: 'The member\u2019s user id.' }) userId: string): Promise<InvitationType> {
    return withArgs(async () => {
      const issued = await this.services.team.issueSetupLink(signedIn(ctx).principal, ctx.merchantId, userId, ctx);
      return { userId: issued.user_id, setupUrl: issued.setup_url };
    });
  }

  @Needs('owners')
  @Mutation(() => InvitationType, {
    nullable: true,
    description:
      'A one-time link for a member who forgot their password (owners only): it sets a new password and ends all their sessions; their earlier links stop working. Shown once.',
  })
  issuePasswordResetLink(
    @Ctx() { ctx }: GqlContext,
    @Arg('userId', () => ID, { description: 'The member\u2019s user id.' }) userId: string,
  ): Promise<InvitationType> {
    return withArgs(async () => {
      const issued = await this.services.team.issuePasswordResetLink(signedIn(ctx).principal, ctx.merchantId, userId, ctx);
      return { userId: issued.user_id, setupUrl: issued.setup_url };
    });
  }

  @Needs('members')
  @Mutation(() => TeamMemberType, {
    nullable: true,
    description: 'Changes a member\u2019s role; their sessions on this merchant end. A merchant keeps at least one owner.',
  })
  changeMemberRole(
    @Ctx() { ctx }: GqlContext,
    @Arg('userId', () => ID, { description: 'The member\u2019s user id.' }) userId: string,
    @Arg('role', () => RoleEnum, { description: 'The new role.' }) role: RoleEnum,
  ): Promise<TeamMemberType> {
    return withArgs(async () => memberType(await this.services.team.changeRole(signedIn(ctx).principal, ctx.merchantId, userId, role, ctx)));
  }

  @Needs('members')
  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Removes a member from this merchant; their sessions on it end at once. A merchant keeps at least one owner.',
  })
  removeMember(@Ctx() { ctx }: GqlContext, @Arg('userId', () => ID, { description: 'The member\u2019s user id.' }) userId: string): Promise<boolean> {
    return withArgs(async () => {
      await this.services.team.remove(signedIn(ctx).principal, ctx.merchantId, userId, ctx);
      return true;
    });
  }

  @Needs('authenticated')
  @Mutation(() => MeType, { nullable: true, description: 'Moves the session to another merchant the member belongs to, and/or the other environment.' })
  switchMerchant(
    @Ctx() gql: GqlContext,
    @Arg('merchantId', () => ID, { description: 'The merchant to act on.' }) merchantId: string,
    @Arg('environment', () => EnvironmentEnum, { nullable: true, description: 'The environment to act in; default test.' }) environment?: EnvironmentEnum,
  ): Promise<MeType | null> {
    return withArgs(async () => {
      const next = await this.services.sessions.switchTo(signedIn(gql.ctx), merchantId, environment ?? EnvironmentEnum.TEST);
      return this.me({
        ...gql,
        ctx: { ...gql.ctx, apiKeyId: next.sessionId, merchantId: next.merchantId, environment: next.environment, principal: next.principal },
      });
    });
  }

  @Needs('authenticated')
  @Query(() => [SessionType], { nullable: true, description: 'The signed-in person\u2019s open sessions, newest first.' })
  async sessions(@Ctx() { ctx }: GqlContext): Promise<SessionType[]> {
    const me = signedIn(ctx);
    return (await this.services.sessions.list(me.principal.id)).map((s) => ({ ...s, current: s.id === me.sessionId }));
  }

  @Needs('authenticated')
  @Mutation(() => Boolean, { nullable: true, description: 'Ends one of the signed-in person\u2019s own sessions (its open sockets close too).' })
  endSession(@Ctx() { ctx }: GqlContext, @Arg('id', () => ID, { description: 'The session id.' }) id: string): Promise<boolean> {
    return withArgs(async () => {
      if (!(await this.services.sessions.end(signedIn(ctx).principal.id, id))) throw ApiError.notFound('session');
      return true;
    });
  }

  @Needs('authenticated')
  @Mutation(() => Boolean, { nullable: true, description: 'Changes the signed-in person\u2019s password (at least 12 characters); their other sessions end.' })
  changePassword(
    @Ctx() { ctx }: GqlContext,
    @Arg('currentPassword', () => String, { description: 'The password now.' }) currentPassword: string,
    @Arg('newPassword', () => String, { description: 'The new password.' }) newPassword: string,
  ): Promise<boolean> {
    return withArgs(async () => {
      await this.services.sessions.changePassword(signedIn(ctx), currentPassword, newPassword);
      return true;
    });
  }

  @Needs('authenticated')
  @Mutation(() => TotpEnrolmentType, { nullable: true, description: 'Starts setting up an authenticator app: answers a new secret; confirmTotp turns it on.' })
  enrolTotp(@Ctx() { ctx }: GqlContext): Promise<TotpEnrolmentType> {
    return withArgs(async () => {
      const enrolment = await this.services.secondFactor.enrol(signedIn(ctx).principal.id);
      return { ...enrolment, qrSvg: await QRCode.toString(enrolment.uri, { type: 'svg', margin: 1 }) };
    });
  }

  @Needs('authenticated')
  @Mutation(() => TotpConfirmationType, {
    nullable: true,
    description: 'Turns the authenticator on with a current code from it; answers the recovery codes once.',
  })
  confirmTotp(@Ctx() { ctx }: GqlContext, @Arg('code', () => String, { description: 'A current 6-digit code.' }) code: string): Promise<TotpConfirmationType> {
    return withArgs(async () => {
      const me = signedIn(ctx);
      const recoveryCodes = await this.services.secondFactor.confirm(me.principal.id, code);
      await this.services.sessions.markSecondFactor(me.sessionId);
      return { recoveryCodes };
    });
  }

  @Needs('authenticated')
  @Mutation(() => TotpConfirmationType, {
    nullable: true,
    description:
      'New recovery codes for the signed-in person, confirmed with a current authentication code (or a recovery code); the earlier codes stop working. Answered once.',
  })
  regenerateRecoveryCodes(
    @Ctx() { ctx }: GqlContext,
    @Arg('code', () => String, { description: 'A current 6-digit code, or a recovery code.' }) code: string,
  ): Promise<TotpConfirmationType> {
    return withArgs(async () => {
      const me = signedIn(ctx);
      await this.services.sessions.confirmSecondFactor(me, code);
      return { recoveryCodes: await this.services.secondFactor.replaceRecoveryCodes(me.principal.id) };
    });
  }

  @Needs('authenticated')
  @Mutation(() => DateTimeScalar, {
    nullable: true,
    description:
      'Confirms the signed-in member with a current authentication code (or a recovery code) again; answers when. A live approval needs one from the last 5 minutes.',
  })
  confirmSecondFactor(
    @Ctx() { ctx }: GqlContext,
    @Arg('code', () => String, { description: 'A current 6-digit code, or a recovery code.' }) code: string,
  ): Promise<Date> {
    return withArgs(() => this.services.sessions.confirmSecondFactor(signedIn(ctx), code));
  }
}
