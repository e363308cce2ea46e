import type { Environment } from '../modules/auth/api-key.entity';

/** Every read and write of merchant data is bounded by this pair; nothing loads by id alone. */
export interface Scope {
  merchantId: string;
  environment: Environment;
}
