import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // One graphql instance: Pothos and Yoga load graphql's CommonJS entry through Node, so our
    // own imports must resolve to the same file (vite would otherwise pick index.mjs).
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    exclude: ['node_modules/**', 'test/bench/**'],
    // Files are isolated (own database, own ports), so they run in parallel.
    pool: 'forks',
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
  },
});
