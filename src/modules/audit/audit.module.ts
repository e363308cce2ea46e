/** The audit log of state-changing calls. */
import { defineModule } from '../module';
import { AuditEntry } from './audit.entity';
import { AuditResolver } from './audit.resolver';
import { registerAuditRoutes } from './audit.routes';
import { AuditEntrySchema } from './audit.schemas';
import { AuditService } from './audit.service';

export const auditModule = defineModule({
  name: 'audit',
  provide: ({ db }) => ({ audit: new AuditService(db) }),
  entities: [AuditEntry],
  resolvers: [AuditResolver],
  routes: registerAuditRoutes,
  models: [AuditEntrySchema],
});
