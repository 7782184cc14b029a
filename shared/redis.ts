// Request-scoped Redis (Upstash REST) with one key namespace for the whole deployment.
import { Redis } from '@upstash/redis/cloudflare';

export interface Store {
  redis: Redis;
  /** Namespaced key: `store.key('cache', 'geo', hash)`. */
  key(...parts: string[]): string;
  prefix: string;
}

export interface StoreConfig {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  REDIS_PREFIX: string;
}

export function createStore(config: StoreConfig): Store {
  const redis = new Redis({
    url: config.UPSTASH_REDIS_REST_URL,
    token: config.UPSTASH_REDIS_REST_TOKEN,
    // A slow Redis must not hold a request hostage; callers decide what a failure means.
    retry: { retries: 1, backoff: () => 50 },
    enableTelemetry: false,
  });
  const prefix = config.REDIS_PREFIX ? `${config.REDIS_PREFIX}:` : '';
  return { redis, prefix, key: (...parts) => prefix + parts.join(':') };
}
