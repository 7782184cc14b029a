// The services of a request that needs no client yet (shared/http/keyless-area.ts, the public area): the
// config, the clock, a store without its Redis client and no database client. Such a request loads
// its clients when it first reads (`withClients`): a keyless 401 and a public 422 evaluate neither
// the Neon driver, drizzle nor @upstash/redis (docs/PERFORMANCE.md, "The first request").
import type { Context, MiddlewareHandler } from 'hono';
import { createClock } from '../time/clock';
import type { Db } from '../db/client';
import { readConfig, type Config, type Env } from '../env';
import type { Store } from '../db/redis';
import { once } from '../once';

/** The client modules (the Neon driver and drizzle, @upstash/redis), imported once by the first request that needs them. */
export const clientModules = once(() => Promise.all([import('../db/client'), import('../db/redis')]));

/**
 * The store of a request that needs no client: its key prefix, which the 401 throttle's isolate
 * check reads before the answer; the Redis client (and @upstash/redis) only when the throttle counts
 * the 401, after the answer (`full`, shared/limits/auth-failures.ts); the public isolate cache's
 * hits, which ask or pay Redis only now and then (functions/public/edge.ts).
 */
export function keylessStore(config: Config): Store & Required<Pick<Store, 'full'>> {
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
    full: () => (full ??= import('../db/redis').then((m) => m.createStore(config))),
  };
}

/** The database of a request before its clients are loaded: any use of it is a bug (`withClients`). */
function absentDb(): Db {
  const absent = (): never => {
    throw new Error('this request has no database client before withClients(c)');
  };
  return new Proxy<Db>(Object.create(null), { get: absent });
}

/**
 * What a request that needs no client yet uses: the config, the store without clients (the 401
 * throttle, the public isolate cache), the clock. A public route loads its clients when its handler
 * reads (`withClients`), once its parameters passed validation: a 422 evaluates neither driver.
 */
export function keylessServices(): MiddlewareHandler<Env> {
  return async function services(c, next) {
    const config = readConfig(c.env);
    c.set('config', config);
    c.set('store', keylessStore(config));
    c.set('db', absentDb());
    c.set('clock', createClock(config.NOW));
    await next();
  };
}

/** Gives a request served by keylessServices its database and Redis clients (a no-op once it has them). */
export async function withClients(c: Context<Env>): Promise<void> {
  const { full } = c.var.store;
  if (!full) return;
  const [store, [{ createDb }]] = await Promise.all([full(), clientModules()]);
  c.set('store', store);
  c.set('db', createDb(c.var.config));
}
