/** The audit log of state-changing calls. */
import { defineModule } from '../module';
import { AuditEntry } from './audit.entity';
import { AUDIT_OPENAPI } from './audit.openapi';
import { AuditResolver } from './audit.resolver';
import { registerAuditRoutes } from './audit.routes';

export const auditModule = defineModule({
  name: 'audit',
  entities: [AuditEntry],
  resolvers: [AuditResolver],
  routes: registerAuditRoutes,
  openapi: AUDIT_OPENAPI,
});
