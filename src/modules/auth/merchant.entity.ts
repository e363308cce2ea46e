import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timeTransformer } from '../../db/columns';

@Entity('merchants')
export class Merchant {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: timeTransformer })
  createdAt: Date;
}
