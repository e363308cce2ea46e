/** Every `*.suite.ts` of this directory, in one test file (test/helpers/suites.ts). */
import { runSuitesIn } from '../helpers/suites';

runSuitesIn(__dirname);
