/** The audit log of state-changing calls. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { AuditEntry } from './audit.entity';
import { AuditResolver } from './audit.resolver';
import { registerAuditRoutes } from './audit.routes';
import { AuditEntrySchema, type AuditEntryWire } from './audit.schemas';
import { AuditService } from './audit.service';
import { AuditEntryType } from './audit.types';

declare module '../../graphql/context' {
  interface Loaders {
    auditEntry: DataLoader<string, AuditEntryWire | null>;
  }
}

// The audit log is read with the events permission, as its query is.
registerNode('aud', AuditEntryType, (loaders, id) => loaders.auditEntry.load(id), 'events:read');

export const auditModule = defineModule({
  name: 'audit',
  provide: ({ db }) => ({ audit: new AuditService(db) }),
  entities: [AuditEntry],
  resolvers: [AuditResolver],
  routes: registerAuditRoutes,
  models: [AuditEntrySchema],
  loaders: ({ audit }, ctx) => ({
    auditEntry: new DataLoader<string, AuditEntryWire | null>(async (ids) => byKey(ids, await audit.getMany(ctx, ids))),
  }),
});
