import { Session } from './session.entity';
import type { RevocationSource } from '../auth/revocation-watcher';

/** Sessions, as the socket watcher sees them: ended, or past their absolute timeout. */
export const SESSION_ENDINGS: RevocationSource = {
  channel: 'payments-gateway:session-ended',
  async revokedAmong(em, ids) {
    const rows: { id: string }[] = await em
      .createQueryBuilder(Session, 's')
      .select('s.id', 'id')
      .where('s.id IN (:...ids)', { ids })
      .andWhere('(s.ended_at IS NOT NULL OR s.expires_at <= :now)', { now: Date.now() })
      .getRawMany();
    return rows.map((r) => r.id);
  },
};
