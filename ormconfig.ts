/**
 * The TypeORM DataSource, for the TypeORM CLI (`npx typeorm -d dist/ormconfig.js migration:show`).
 * The service builds the same DataSource through src/db/data-source.ts.
 */
import 'reflect-metadata';
import { loadConfig } from './src/config';
import { createDataSource } from './src/db/data-source';
import { ENTITIES } from './src/modules';

export default createDataSource(loadConfig().database, ENTITIES);
