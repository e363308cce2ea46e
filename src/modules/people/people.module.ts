/**
 * A merchant's people: users, memberships and roles, setup links, sign-in with a password and
 * an authenticator, and sessions (with the watch that closes an ended session's sockets).
 */
import { FailureLimiter } from '../../http/rate-limit';
import { authModule } from '../auth/auth.module';
import { RevocationWatcher } from '../auth/revocation-watcher';
import { defineModule } from '../module';
import { Membership, RecoveryCode, SetupLink, User } from './people.entity';
import { PeopleResolver } from './people.resolver';
import { registerPeopleRoutes } from './people.routes';
import { Passwords } from './credentials';
import { SecondFactor } from './second-factor';
import { Session } from './session.entity';
import { SESSION_ENDINGS } from './session-endings';
import { SessionService } from './session.service';
import { TeamService } from './team.service';

export const peopleModule = defineModule({
  name: 'people',
  uses: { auth: authModule },
  provide({ db, config, log, redis, cipher, publicUrl }, { auth }) {
    const { perAccount, perAddress, windowS, lockS } = config.signIn;
    const limits = {
      account: new FailureLimiter('sign-in-account', perAccount, windowS, lockS, redis),
      address: new FailureLimiter('sign-in-address', perAddress, windowS, lockS, redis),
    };
    const secondFactor = new SecondFactor(db, cipher);
    const passwords = new Passwords(config.passwordHashing);
    const sessions = new SessionService(db, config.sessions, limits, secondFactor, passwords);
    const team = new TeamService(db, publicUrl, passwords);
    // Closes the graphql-ws sockets of ended sessions, on every process (as revoked keys').
    const sessionWatch = new RevocationWatcher(db, config.revocationPollMs, log.child({ component: 'sessions' }), redis, SESSION_ENDINGS);
    sessions.afterEnd.push(async (ids) => {
      for (const id of ids) await sessionWatch.revoked(id);
    });
    team.afterAccessChange.push((userId, merchantId) => sessions.endFor(userId, merchantId));
    return { team, sessions, secondFactor, sessionWatch, publicUrl, auth: auth.auth };
  },
  close: ({ sessionWatch }) => sessionWatch.close(),
  entities: [User, Membership, SetupLink, RecoveryCode, Session],
  resolvers: [PeopleResolver],
  routes: registerPeopleRoutes,
});
