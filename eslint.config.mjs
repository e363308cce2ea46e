// Lint: typescript-eslint's type-checked rules over the service, the dashboard, tests and
// bench; formatting is Prettier's job (eslint-config-prettier turns stylistic rules off).
// A promise that nobody awaits or that is handed where a callback's result is ignored is an
// error everywhere: in a payments service it is a write that may fail unseen.
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  // examples/typed-client.ts imports dist/openapi.d.ts, which `npm run build:client` generates
  // after a build; test/contract/typed-client.test.ts type-checks it against those types.
  {
    ignores: ['dist/**', 'node_modules/**', 'dashboard/src/gql/**', 'coverage/**', 'data/**', 'test-artifacts/**', 'examples/**'],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and benchmarks read JSON answers of the API under test: `any` is what they are
    // given, and each test asserts the shape it needs. The promise rules stay on.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
