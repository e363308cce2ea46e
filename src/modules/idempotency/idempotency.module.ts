/** Stored answers of Idempotency-Key requests (used by the operation pipeline). */
import { defineModule } from '../module';
import { IdempotencyKey } from './idempotency-key.entity';

export const idempotencyModule = defineModule({ name: 'idempotency', entities: [IdempotencyKey] });
