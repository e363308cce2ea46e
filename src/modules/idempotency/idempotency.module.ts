/** Stored answers of Idempotency-Key requests (used by the operation pipeline). */
import { defineModule } from '../module';
import { IdempotencyKey } from './idempotency-key.entity';

export const idempotencyModule = defineModule({
  name: 'idempotency',
  entities: [IdempotencyKey],
  // Stored answers are sealed: a webhook endpoint's create answer carries its signing secret.
  sealed: [{ entity: IdempotencyKey, property: 'responseBody' }],
});
