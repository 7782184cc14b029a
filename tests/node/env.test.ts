// shared/env.ts parses the bindings by hand (a request without a key loads no zod). This is the zod
// schema it replaced; over generated bindings, readConfig must give the same config (values,
// defaults, which keys are present) or the same error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readConfig, type Bindings } from '../../shared/env';

const reference = z.object({
  DATABASE_URL: z.string().min(1),
  NEON_HTTP_ENDPOINT: z.string().optional(),
  NEON_WS_PROXY: z.string().optional(),
  UPSTASH_REDIS_REST_URL: z.string().url(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1),
  REDIS_PREFIX: z.string().default(''),
  APP_URL: z.string().url().default('https://app.example.com'),
  AGGREGATE_INLINE_COST: z.coerce.number().positive().optional(),
  ISOLATE_CACHE_SECONDS: z.coerce.number().int().min(0).default(10),
  REFERENCE_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(300),
  CURSOR_SECRET: z.union([z.literal('').transform(() => undefined), z.string().min(16)]).optional(),
  ENVIRONMENT: z.string().optional(),
  CACHE_OUTCOME_HEADER: z.enum(['internal', 'all']).default('internal'),
  DOCS_DEMO_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  WORKER_NAME: z.string().default('discovery-api'),
  NOW: z.string().datetime({ offset: true }).optional(),
});

function viaZod(bindings: object) {
  const result = reference.safeParse(bindings);
  if (result.success) return { config: result.data };
  return { error: `Worker misconfigured: check bindings ${result.error.issues.map((i) => i.path.join('.')).join(', ')}` };
}

function viaReadConfig(bindings: object) {
  try {
    return { config: readConfig(bindings as Bindings) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const STRINGS = [
  '',
  ' ',
  'x',
  'postgres://u:p@127.0.0.1:5432/db',
  'http://127.0.0.1:8080',
  ' https://example.com/a b ',
  'https://exa\tmple.com\n',
  'http:example.com',
  'not a url',
  'redis://h:1',
  'mailto:a@b.c',
  'https://',
  '0',
  '5',
  ' 5 ',
  '-1',
  '1.5',
  '-1.5',
  '1e3',
  '0x10',
  'Infinity',
  'NaN',
  '9007199254740993',
  'internal',
  'all',
  'debug',
  'info',
  'warn',
  'error',
  'ALL',
  'dev-secret-0123456789',
  'short-secret',
  '0123456789abcdef',
  '2026-11-25T10:00:00Z',
  '2026-11-25T10:00:00.123+01:00',
  '2026-11-25T10:00Z',
  '2026-02-29T00:00:00Z',
  '2028-02-29T00:00:00Z',
  '2026-11-25',
  'development',
];
const value = fc.oneof(
  fc.constantFrom(...STRINGS),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(0, 1, 2.5, -3, 300),
  fc.constant(undefined),
);
const KEYS = Object.keys(reference.shape);
const VALID = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
  UPSTASH_REDIS_REST_TOKEN: 'token',
};

describe('readConfig', () => {
  it('parses the bindings exactly as the zod schema it replaced', () => {
    const bindings = fc
      .tuple(fc.boolean(), fc.dictionary(fc.constantFrom(...KEYS, 'JOBS_QUEUE', 'OTHER'), value))
      .map(([base, fields]) => (base ? { ...VALID, ...fields } : fields));
    fc.assert(
      fc.property(bindings, (b) => {
        expect(viaReadConfig({ ...b })).toStrictEqual(viaZod({ ...b }));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps what the deployed Workers bind', () => {
    const config = readConfig({ ...VALID, REDIS_PREFIX: 'ns', ISOLATE_CACHE_SECONDS: '0', CURSOR_SECRET: '' } as Bindings);
    expect(config).toStrictEqual(viaZod({ ...VALID, REDIS_PREFIX: 'ns', ISOLATE_CACHE_SECONDS: '0', CURSOR_SECRET: '' }).config);
  });
});
