/** The way keys are claimed on this database (src/ops/key-claim.ts): inline on MariaDB, in a transaction of their own elsewhere. */
import type { KeyClaim } from '../../ops/key-claim';
import { InlineClaim } from './claim-inline';
import { SeparateClaim } from './claim-separate';
import type { IdempotencyService } from './idempotency.service';

export function keyClaimOf(keys: IdempotencyService): KeyClaim {
  const separate = new SeparateClaim(keys);
  return keys.claimsInline ? new InlineClaim(keys, separate) : separate;
}
