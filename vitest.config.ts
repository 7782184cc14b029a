// Two projects: Worker tests inside workerd (through the local gateway to the machine's real
// PostgreSQL and Redis), and Node tests for the CLIs and the embedded `npm start` path.
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { DEV_CURSOR_SECRET } from './shared/dev-secrets';

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                DATABASE_URL: inject<string>('databaseUrl'),
                NEON_HTTP_ENDPOINT: inject<string>('neonHttpUrl'),
                NEON_WS_PROXY: inject<string>('neonWsProxy'),
                UPSTASH_REDIS_REST_URL: inject<string>('upstashUrl'),
                UPSTASH_REDIS_REST_TOKEN: inject<string>('upstashToken'),
                DEAD_REDIS_UPSTASH_URL: inject<string>('deadRedisUpstashUrl'),
                HUNG_REDIS_UPSTASH_URL: inject<string>('hungRedisUpstashUrl'),
                QUIET_UPSTASH_URL: inject<string>('quietUpstashUrl'),
                DISTANT_UPSTASH_URL: inject<string>('distantUpstashUrl'),
                ADMIN_DATABASE_URL: inject<string>('adminDatabaseUrl'),
                TEMPLATE_DATABASE: inject<string>('templateDatabase'),
                RUN_ID: inject<string>('runId'),
                APP_URL: 'https://app.example.com',
                // Never in wrangler.toml (a secret in production): the dev-only value, accepted in development only.
                CURSOR_SECRET: DEV_CURSOR_SECRET,
                ENVIRONMENT: 'development',
                // One log line per request would bury test output; tests/workers/observability.test.ts sets info.
                LOG_LEVEL: 'warn',
              },
            },
          })),
        ],
        test: {
          name: 'workers',
          include: ['tests/workers/**/*.test.ts'],
          globalSetup: ['tests/setup/global.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'node',
          include: ['tests/node/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/setup/global.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
