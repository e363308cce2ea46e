/** jest globalTeardown: removes the run's schema template (test/helpers/schema-template.ts). */
import { removeTemplate } from './schema-template';

export default function globalTeardown(): void {
  removeTemplate();
}
