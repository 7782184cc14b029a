// Request-scoped Redis (Upstash REST) with one key namespace for the whole deployment.
import { Redis, type RedisConfigCloudflare } from '@upstash/redis/cloudflare';

/** Upper bound of one Redis call before the request goes on without it. */
export const REDIS_TIMEOUT_MS = 300;

export interface Store {
  redis: Redis;
  /**
   * The same Redis without the client's JSON deserialization and base64 response encoding: string
   * values come back as stored, parsed once (with the HTTP body) by the runtime. For cached answers,
   * which are large JSON texts sent as they are (shared/aggregates/).
   */
  readonly text: Redis;
  /** Namespaced key: `store.key('cache', 'geo', hash)`. */
  key(...parts: string[]): string;
  prefix: string;
  /**
   * Set on a store created without its clients (a request without a key, shared/http/keyless-area.ts):
   * the full store, whose clients the 401 throttle uses after the answer.
   */
  full?: () => Promise<Store>;
}

export interface StoreConfig {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  REDIS_PREFIX: string;
}

export function createStore(config: StoreConfig): Store {
  const options: RedisConfigCloudflare = {
    url: config.UPSTASH_REDIS_REST_URL,
    token: config.UPSTASH_REDIS_REST_TOKEN,
    // A slow Redis must not hold a request hostage: every call is bounded and not retried;
    // callers decide what a failure means (see shared/limits: the isolate fallback limiter).
    retry: false,
    signal: () => AbortSignal.timeout(REDIS_TIMEOUT_MS),
    // Commands issued in the same tick travel as one pipeline: one round trip for the limits.
    enableAutoPipelining: true,
    enableTelemetry: false,
  };
  const redis = new Redis(options);
  let text: Redis | undefined;
  const prefix = config.REDIS_PREFIX ? `${config.REDIS_PREFIX}:` : '';
  return {
    redis,
    prefix,
    key: (...parts) => prefix + parts.join(':'),
    get text() {
      return (text ??= new Redis({ ...options, automaticDeserialization: false, responseEncoding: false }));
    },
  };
}
