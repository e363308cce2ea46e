/** Payment methods: the catalogue, discovery, routing and per-merchant settings. */
import { defineModule } from '../module';
import { providersModule } from '../providers/provider.module';
import { CONNECTORS } from './simulated.connector';
import { MethodRouting } from './method-routing.service';
import { PaymentMethodSetting } from './method-setting.entity';
import { MethodSettings } from './method-settings.service';
import { methodOperations } from './method.operations';
import { MethodResolver } from './method.resolver';
import { registerMethodRoutes } from './method.routes';
import { METHOD_MODELS } from './method.schemas';

export const methodsModule = defineModule({
  name: 'methods',
  uses: { providers: providersModule },
  provide({ db, config }, { providers }) {
    const methodSettings = new MethodSettings(db);
    const methodRouting = new MethodRouting(db, methodSettings, config.simulatedProvidersInLive, CONNECTORS, providers.liveConnectors);
    return { methodSettings, methodRouting, ops: methodOperations(methodSettings) };
  },
  entities: [PaymentMethodSetting],
  resolvers: [MethodResolver],
  routes: registerMethodRoutes,
  models: METHOD_MODELS,
});
