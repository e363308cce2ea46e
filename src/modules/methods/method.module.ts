/** Payment methods: the catalogue, discovery, routing and per-merchant settings. */
import { defineModule } from '../module';
import { PaymentMethodSetting } from './method-setting.entity';
import { MethodResolver } from './method.resolver';
import { registerMethodRoutes } from './method.routes';
import { METHOD_MODELS } from './method.schemas';

export const methodsModule = defineModule({
  name: 'methods',
  entities: [PaymentMethodSetting],
  resolvers: [MethodResolver],
  routes: registerMethodRoutes,
  models: METHOD_MODELS,
});
