// The app a deployed keyed area answers a request without a key with (shared/lazy-area.ts): the
// area's chain up to the key check, which answers 401 (or, before it, 413, 400 or the 401
// throttle's 429), and nothing after it. It is a plain Hono app with the same security headers,
// error and not-found handlers as createApp's, and no database client: the 401 needs neither
// @hono/zod-openapi and zod's route schemas nor the Neon driver and drizzle (docs/PERFORMANCE.md,
// "The first request").
import type { MiddlewareHandler } from 'hono';
// hono/tiny's PatternRouter: nothing to compile before the first match (the RegExpRouter of `hono`
// builds its matcher on the first request), for the few patterns this app holds.
import { Hono } from 'hono/tiny';
import { chainHead, type AreaOptions } from './area-chain';
import { createClock } from './clock';
import { readConfig, type Config, type Env } from './env';
import { onError, onNotFound } from './errors';
import type { Store } from './redis';
import { securityHeaders } from './security-headers';

/**
 * The store of a request without a key: its key prefix, which the 401 throttle's isolate check
 * reads before the answer; the Redis client (and @upstash/redis) only when the throttle counts the
 * 401, after the answer (`full`, shared/limits/auth-failures.ts).
 */
function keylessStore(config: Config): Store {
  const prefix = config.REDIS_PREFIX ? `${config.REDIS_PREFIX}:` : '';
  let full: Promise<Store> | undefined;
  const absent = (): never => {
    throw new Error('a request without a key has no Redis client before its answer');
  };
  return {
    prefix,
    key: (...parts) => prefix + parts.join(':'),
    get redis() {
      return absent();
    },
    get text() {
      return absent();
    },
    full: () => (full ??= import('./redis').then((m) => m.createStore(config))),
  };
}

/** What a request without a key uses before its 401: the config, the store (the 401 throttle), the clock. */
function keylessServices(): MiddlewareHandler<Env> {
  return async function services(c, next) {
    const config = readConfig(c.env);
    c.set('config', config);
    c.set('store', keylessStore(config));
    c.set('clock', createClock(config.NOW));
    await next();
  };
}

/** The keyed area's chain up to its key check, bound to its prefixes as createArea binds the whole chain. */
export function keylessArea(options: AreaOptions): Hono<Env> {
  if (!options.auth) throw new Error('keylessArea: the area takes no key');
  const app = new Hono<Env>();
  app.use('*', securityHeaders());
  app.onError(onError);
  app.notFound(onNotFound);
  const chain = chainHead(options, keylessServices());
  for (const base of options.basePaths) app.use(`${base}/*`, ...chain);
  return app;
}
