import type { Logger } from 'pino';
import type { Scope } from '../../domain/scope';

/** Who is calling, resolved once per request by authentication. */
export interface RequestContext extends Scope {
  apiKeyId: string;
  requestId: string;
  log: Logger;
}
