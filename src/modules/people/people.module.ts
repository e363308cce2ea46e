/**
 * A merchant's people: users, memberships and roles, setup links, sign-in with a password and
 * an authenticator, and sessions (with the watch that closes an ended session's sockets).
 */
import DataLoader from 'dataloader';
import { registerNode } from '../../graphql/node';
import { FailureLimiter } from '../../http/rate-limit';
import { authModule } from '../auth/auth.module';
import { auditModule } from '../audit/audit.module';
import { RevocationWatcher } from '../auth/revocation-watcher';
import { defineModule } from '../module';
import { Membership, RecoveryCode, SetupLink, User } from './people.entity';
import { memberType, PeopleResolver, signedIn } from './people.resolver';
import { SessionType, TeamMemberType } from './people.types';
import { registerPeopleRoutes } from './people.routes';
import { Passwords } from './credentials';
import { SecondFactor } from './second-factor';
import { Session } from './session.entity';
import { SESSION_ENDINGS } from './session-endings';
import { SessionService } from './session.service';
import { TeamService } from './team.service';

declare module '../../graphql/context' {
  interface Loaders {
    teamMember: DataLoader<string, TeamMemberType | null>;
    signInSession: DataLoader<string, SessionType | null>;
  }
}

// People are for signed-in members, as their queries are (the loaders refuse an API key): a member
// of this merchant, or one of the caller's own sessions.
registerNode('usr', TeamMemberType, (loaders, id) => loaders.teamMember.load(id), 'authenticated');
registerNode('ses', SessionType, (loaders, id) => loaders.signInSession.load(id), 'authenticated');

export const peopleModule = defineModule({
  name: 'people',
  uses: { auth: authModule, audit: auditModule },
  provide({ db, config, log, redis, cipher, publicUrl }, { auth, audit }) {
    const { perAccount, perAddress, windowS, lockS } = config.signIn;
    const limits = {
      account: new FailureLimiter('sign-in-account', perAccount, windowS, lockS, redis),
      address: new FailureLimiter('sign-in-address', perAddress, windowS, lockS, redis),
    };
    const secondFactor = new SecondFactor(db, cipher);
    const passwords = new Passwords(config.passwordHashing);
    // Closes the graphql-ws sockets of ended sessions, on every process (as revoked keys').
    const sessionWatch = new RevocationWatcher(db, config.revocationPollMs, log.child({ component: 'sessions' }), redis, SESSION_ENDINGS);
    const sessions = new SessionService(db, config.sessions, limits, secondFactor, passwords, log.child({ component: 'sign-in' }), sessionWatch);
    // Team changes (invite, new setup link, role change, removal) are audited with their actor,
    // and end the sessions of the person whose access changed.
    const team = new TeamService(db, publicUrl, passwords, (tx, ctx, facts) => audit.audit.record(tx, ctx, facts), sessions);
    return { team, sessions, secondFactor, sessionWatch, publicUrl, auth: auth.auth };
  },
  close: ({ sessionWatch }) => sessionWatch.close(),
  entities: [User, Membership, SetupLink, RecoveryCode, Session],
  resolvers: [PeopleResolver],
  routes: registerPeopleRoutes,
  loaders: ({ team, sessions }, ctx) => ({
    teamMember: new DataLoader<string, TeamMemberType | null>(async (ids) => {
      signedIn(ctx);
      const members = new Map((await team.members(ctx.merchantId)).map((m) => [m.user.id, memberType(m)]));
      return ids.map((id) => members.get(id) ?? null);
    }),
    signInSession: new DataLoader<string, SessionType | null>(async (ids) => {
      const me = signedIn(ctx);
      const open = new Map((await sessions.list(me.principal.id)).map((s) => [s.id, { ...s, current: s.id === me.sessionId }]));
      return ids.map((id) => open.get(id) ?? null);
    }),
  }),
});
