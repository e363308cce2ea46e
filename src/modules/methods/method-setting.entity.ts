import { Column, Entity, PrimaryColumn } from 'typeorm';
import { booleanTransformer, timeTransformer } from '../../db/columns';
import type { Environment } from '../auth/api-key.entity';

/**
 * A merchant's choice to offer a payment method or not, per environment. No row means
 * the catalogue default: enabled.
 */
@Entity('payment_method_settings')
export class PaymentMethodSetting {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 40 })
  merchantId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: Environment;

  @Column({ name: 'payment_method', type: 'varchar', length: 40 })
  paymentMethod: string;

  @Column({ type: 'int', transformer: booleanTransformer })
  enabled: boolean;

  @Column({ name: 'updated_at', type: 'bigint', transformer: timeTransformer })
  updatedAt: Date;
}
