/**
 * The schema's own surface, which belongs to no resource: `node(id:)`/`nodes(ids:)` over every
 * registered Node type (each module registers its own, graphql/node.ts) and `errorCodes`.
 */
import { defineModule } from '../module';
import { NodeResolver } from './graph.resolver';

export const graphModule = defineModule({
  name: 'graph',
  resolvers: [NodeResolver],
});
