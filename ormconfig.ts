/**
 * The TypeORM DataSource, for the TypeORM CLI. Build first, then run it on the compiled file:
 *
 *   npm run build
 *   npx typeorm -d dist/ormconfig.js migration:show        # [X] applied, [ ] pending
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/payments npx typeorm -d dist/ormconfig.js migration:show
 *
 * It reads the same environment as the service (DATABASE_URL, DATA_DIR, SQLITE_FILE) and
 * builds the same DataSource through src/db/data-source.ts. Only its logger differs: the
 * service's logger (CountingLogger) forwards to pino and drops schema messages, which is
 * where the CLI prints its answers, so here TypeORM's console logger is used instead.
 */
import 'reflect-metadata';
import { loadConfig } from './src/config';
import { createDataSource } from './src/db/data-source';
import { provideMigrationCipher } from './src/db/migrations/cipher';
import { FieldCipher } from './src/domain/crypto';
import { ENTITIES } from './src/modules';

const config = loadConfig();
const dataSource = createDataSource(config.database, ENTITIES);
// Migrations that seal stored data use the key the service would load from this environment.
provideMigrationCipher(() =>
  FieldCipher.load({
    base64: config.dataEncryptionKey,
    previous: config.dataEncryptionKeysPrevious,
    dataDir: config.dataDir,
    production: config.nodeEnv === 'production',
  }),
);
// The CLI sets `logging` per command (migration:show: ['schema']); keep errors visible otherwise.
dataSource.setOptions({ logger: 'advanced-console', logging: ['error', 'warn', 'schema', 'migration'] });

export default dataSource;
