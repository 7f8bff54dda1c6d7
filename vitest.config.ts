import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['mock-server/**/*.test.ts', 'fixtures/**/*.test.ts', 'openapi/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
