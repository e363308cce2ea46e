/** The audit log of state-changing calls. */
import { defineModule } from '../module';
import { AuditEntry } from './audit.entity';
import { AuditResolver } from './audit.resolver';
import { registerAuditRoutes } from './audit.routes';
import { AuditEntrySchema } from './audit.schemas';

export const auditModule = defineModule({
  name: 'audit',
  entities: [AuditEntry],
  resolvers: [AuditResolver],
  routes: registerAuditRoutes,
  models: [AuditEntrySchema],
});
