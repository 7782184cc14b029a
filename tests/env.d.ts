// Bindings the Worker tests receive (vitest.config.ts provides them from the global setup).
declare global {
  namespace Cloudflare {
    interface Env {
      DATABASE_URL: string;
      NEON_HTTP_ENDPOINT: string;
      NEON_WS_PROXY: string;
      UPSTASH_REDIS_REST_URL: string;
      UPSTASH_REDIS_REST_TOKEN: string;
      DEAD_REDIS_UPSTASH_URL: string;
      HUNG_REDIS_UPSTASH_URL: string;
      QUIET_UPSTASH_URL: string;
      DISTANT_UPSTASH_URL: string;
      ADMIN_DATABASE_URL: string;
      TEMPLATE_DATABASE: string;
      RUN_ID: string;
      APP_URL: string;
      JOBS_QUEUE: Queue<unknown>;
      INGEST_BUCKET: R2Bucket;
    }
  }
}
export {};
