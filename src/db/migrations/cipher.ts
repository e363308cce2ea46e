/**
 * The data encryption key for migrations that seal or open stored data. TypeORM builds
 * migrations itself (no constructor arguments), so whoever runs them provides the key
 * first: the service (src/app.ts) its own `FieldCipher`, the TypeORM CLI (ormconfig.ts) the
 * one the service would load from the same environment. Asked for lazily: a migration
 * with nothing to seal needs no key.
 */
import type { FieldCipher } from '../../domain/crypto';

let provider: (() => FieldCipher) | undefined;

export function provideMigrationCipher(fn: () => FieldCipher): void {
  provider = fn;
}

export function migrationCipher(): FieldCipher {
  if (!provider)
    throw new Error('this migration seals stored data and needs the data encryption key; run it through the service or the TypeORM CLI (ormconfig.ts)');
  return provider();
}
