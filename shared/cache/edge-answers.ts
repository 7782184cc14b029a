// Warm answers at the edge (docs/PERFORMANCE.md "Cache lifetimes"): the keyed reads that no
// other cache keeps (trends, themes and topics, entities, articles, one URL's profiles, tracking
// lists, category analytics) are kept, as answered, in this isolate's memory for
// ISOLATE_CACHE_SECONDS, so the same question again costs no round trip to the data region. Keyed by
// the deployment, the path and query (the JSON is kept: exports convert it), everything of the key that changes an answer (project,
// plan, markets, plan categories, history, add-ons, key kind) and the minute of "now"; only after auth,
// plan gates and limits, so every answer is still admitted and counted. A kept answer keeps its
// Data-As-Of and says its Age. Identical requests arriving while the first is read join its answer.
import type { MiddlewareHandler } from 'hono';
import { sha256Hex } from '../hash';
import type { Env } from '../env';
import { namespaces } from './namespaces';
import { strongTag } from '../http/etag';
import { respond, type CachedResponse } from './response';

declare module './namespaces' {
  interface NamespaceValues {
    edgeAnswers: CachedResponse;
  }
}

/** Identical requests in flight (shared/cache/flights.ts) join the first one's answer. */
const { held: answers, flights } = namespaces.edgeAnswers;

/** The reads kept here; the others have their own caches (aggregates, feed pages, geo) or must not be kept (usage). */
const KEPT = [
  /^\/v1\/trends(\/[^/]+(\/(articles|parents|children))?)?$/,
  /^\/v1\/themes(\/[^/]+\/topics)?$/,
  /^\/v1\/topics\/[^/]+\/trends$/,
  /^\/v1\/entities(\/(?!trending$)[^/]+(\/articles)?)?$/,
  /^\/v1\/articles(\/[^/]+)?$/,
  /^\/v1\/analytics\/categories$/,
  /^\/v2\/feed\/[^/]+$/,
  /^\/v1\/tracking\/lists(\/[^/]+)?$/,
];

const keptAtEdge = (path: string) => KEPT.some((pattern) => pattern.test(path));

/** Headers a kept answer carries again: what the body means, not per-request state. */
const KEEP = ['data-as-of', 'link'];

export function edgeAnswers(): MiddlewareHandler<Env> {
  return async function edgeAnswers(c, next) {
    const { config, auth, clock } = c.var;
    const seconds = config.ISOLATE_CACHE_SECONDS;
    if (c.req.method !== 'GET' || seconds === 0 || !keptAtEdge(c.req.path)) return next();
    const url = new URL(c.req.url);
    const scope = [auth.projectId, auth.plan, auth.allowedCountries, auth.categories, auth.historyDays, auth.addons, auth.keyKind];
    const minute = Math.floor(clock.now().getTime() / 60_000);
    const key = await sha256Hex(JSON.stringify([config.DATABASE_URL, config.REDIS_PREFIX, url.pathname, url.search, scope, minute]));
    const held = answers.get(key);
    if (held) return void (c.res = respond(c, held, true));
    const { value, joined } = await flights.shared(key, async () => {
      await next();
      const res = c.res;
      if (res.status !== 200 || !res.headers.get('Content-Type')?.startsWith('application/json')) return undefined;
      const text = await res.text();
      const headers: Record<string, string> = {};
      for (const name of KEEP) {
        const value = res.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const cached: CachedResponse = { text, etag: await strongTag(text), headers, storedAt: Date.now() };
      answers.set(key, cached, text.length, seconds * 1000);
      c.res = undefined;
      c.res = respond(c, cached, false);
      return cached;
    });
    if (joined && value) c.res = respond(c, value, true);
  };
}
