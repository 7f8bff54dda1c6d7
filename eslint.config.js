import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A folder of mock-server/ that may not import the named sibling folders (nor the wiring above them). */
function layer(files, forbidden, why) {
  const up = forbidden.flatMap((folder) => [
    `**/mock-server/${folder}/**`,
    `../${folder}/*`,
    `../../${folder}/*`,
    `../../../${folder}/*`,
  ]);
  return {
    files: [files],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: up, message: why },
            { group: ['**/services.js', '**/server.js', '**/main.js', 'express'], message: why },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'reports/', 'fixtures/generated/', 'openapi/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
    },
  },
  // The house's layers (docs/architecture.md): imports only go down. Each folder names what it may
  // not reach; a break fails `npm run lint`.
  layer(
    'mock-server/domain/**/*.ts',
    ['http', 'control', 'stores', 'runtime'],
    'The domain owns ports; adapters and HTTP sit above it.',
  ),
  layer(
    'mock-server/engines/**/*.ts',
    ['http', 'control', 'domain', 'stores', 'runtime'],
    'Engines are pure work: bytes and arrays in and out.',
  ),
  layer(
    'mock-server/stores/**/*.ts',
    ['http', 'control', 'runtime'],
    "Stores implement the domain's ports, below HTTP.",
  ),
  layer(
    'mock-server/runtime/**/*.ts',
    ['http', 'control', 'stores'],
    'Process pools run engines, below HTTP.',
  ),
  {
    files: ['contract-tests/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/mock-server/**', '../mock-server/*'],
              message: 'The contract suite speaks HTTP only.',
            },
          ],
        },
      ],
    },
  },
);
