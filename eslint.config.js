import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'reports/', 'fixtures/generated/', 'openapi/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The state port is asynchronous (mock-server/domain/state.ts): a promise left unawaited is a
    // check that never ran or a write that may land after its answer, so the type-aware rules hold.
    files: ['mock-server/**/*.ts', 'test-support/**/*.ts', 'bench/**/*.ts', 'sandbox/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // A function longer than this does more than one thing: the mock's and the suite's are split
    // into named parts instead (tests, whose cases read top to bottom, aside).
    files: ['mock-server/**/*.{ts,js}', 'contract-tests/**/*.{ts,js}'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 100 }] },
  },
  // The house's import rules (layers, circles, the suite's HTTP-only rule) live in
  // .dependency-cruiser.cjs and run as `npm run lint:deps`.
);
