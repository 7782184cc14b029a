// Worker tests inside workerd (through the local gateway to the machine's real PostgreSQL and
// Redis), and Node tests for the CLIs and the embedded `npm start` path: each a project for the files
// that run two at a time, and one for the timed files that run alone after them.
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { DEV_CURSOR_SECRET } from './shared/http/dev-secrets';

/**
 * Files that time what they test (Redis answering within its 300 ms budget, round trips, deadlines,
 * minute turns, restarts): they run alone, after the others, which run two at a time (a file has its
 * own database and Redis namespace). On an idle machine the suite took 444 s one file at a time and 323 s
 * this way; all two at a time took 269 s, but a 429 test then saw its Redis call time out and fall back
 * to the isolate limiter.
 */
const TIMED = {
  workers: [
    'aggregate-budget',
    'aggregate-single-flight',
    // Its outcomes (hit, miss) hold only while Redis answers within its budget: under load a lookup that
    // timed out reads `bypass`.
    'cached-reads',
    'edge-bounds',
    'edge-limits',
    'gateway',
    'limits',
    'mcp',
    'plan-changes',
    'public-edge',
    'round-trips',
    'stale',
    'statement-timeout',
    'streams-fanout',
  ].map((name) => `tests/workers/${name}.test.ts`),
  node: [
    'abandoned-calls',
    'gateway-embedded',
    'gateway-watchdog',
    'restart',
    // Items must arrive and slots come back within bounds, from npm start's in-process PGlite and Redis,
    // which answer late when a CPU-heavy file runs beside them (two fresh clones failed it that way).
    'streams-eventsource',
  ].map((name) => `tests/node/${name}.test.ts`),
};

/** A project's files: the parallel share (group 0) or the timed files, alone after it (group 1). */
const share = (area: keyof typeof TIMED, timed: boolean) => ({
  name: timed ? `${area}-timed` : area,
  include: timed ? TIMED[area] : [`tests/${area}/**/*.test.ts`],
  exclude: timed ? [] : TIMED[area],
  maxWorkers: timed ? 1 : 2,
  sequence: { groupOrder: timed ? 1 : 0 },
});

const workers = (timed: boolean) => ({
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
    ...share('workers', timed),
    globalSetup: ['tests/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

const node = (timed: boolean) => ({
  test: {
    ...share('node', timed),
    environment: 'node',
    globalSetup: ['tests/setup/global.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

export default defineConfig({
  test: { projects: [workers(false), node(false), workers(true), node(true)] },
});
