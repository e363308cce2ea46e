import { Column, Entity } from 'typeorm';
import { IntentRecord } from '../shared/intent.entity';
import { jsonTransformer, timeTransformer } from '../../db/columns';
import type { NextAction } from '../methods/next-action';
import type { TopupStatus } from './topup.states';

@Entity('topup_intents')
export class TopupIntent extends IntentRecord<TopupStatus> {
  /** The bank-transfer instructions shown while the topup waits for the transfer. */
  @Column({ name: 'next_action', type: 'text', nullable: true, transformer: jsonTransformer })
  nextAction: NextAction | null;

  @Column({ name: 'expires_at', type: 'bigint', transformer: timeTransformer })
  expiresAt: Date;
}
