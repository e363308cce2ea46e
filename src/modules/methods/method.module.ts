/** Payment methods: the catalogue, discovery, routing and per-merchant settings. */
import { defineModule } from '../module';
import { PaymentMethodSetting } from './method-setting.entity';
import { METHOD_OPENAPI } from './method.openapi';
import { MethodResolver } from './method.resolver';
import { registerMethodRoutes } from './method.routes';

export const methodsModule = defineModule({
  name: 'methods',
  entities: [PaymentMethodSetting],
  resolvers: [MethodResolver],
  routes: registerMethodRoutes,
  openapi: METHOD_OPENAPI,
});
