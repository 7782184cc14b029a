// The one registry of what served code keeps beyond a request (docs/PERFORMANCE.md "Cache lifetimes"):
// every isolate cache and piece of module state, every Cache API key space, every Redis namespace and
// aggregate kind, declared once. Owners read and write the registry's holders
// (`namespaces.keyAuth.held`); no other module of functions/ or shared/ builds state at module level
// (tests/node/cache-registry.test.ts).
// Each entry's doc comment is its declaration: @tier (isolate, cache-api, redis), @key (its parts in
// order; `scope` where the value depends on the caller's key, and what of it), @lifetime, @stale
// (whether it is ever served past its lifetime), @bounds (isolate holders), @owner (the modules that
// use it) and the one line why. Comments, so that they cost every Worker bundle nothing; the test
// checks that each entry carries them and that its owners read it; editors show them on hover.
// It imports only the generic holders: domain modules import it, never the reverse, so it adds no
// import cycle and loads nothing an area's bundle would not. The value types come from their owners
// through `NamespaceValues`.
import type { MiddlewareHandler } from 'hono';
import { Flights } from './flights';
import { IsolateMap, IsolateSlot } from './isolate-map';
import { IsolateCache, type MemoryLimits } from './memory';

/**
 * The value each holder keeps, named by the module that owns its type (module augmentation, as hono's
 * `ContextVariableMap`): `declare module '.../cache/namespaces' { interface NamespaceValues { x: T } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the owners' module augmentations
export interface NamespaceValues {}
type Value<N extends string> = N extends keyof NamespaceValues ? NamespaceValues[N] : never;

const MiB = 1024 * 1024;

/** How long a key read is kept (wall time). */
export const KEY_TTL_MS = 30_000;
/** How long a public check's answer is kept. */
export const PUBLIC_ANSWER_TTL_MS = 60_000;
/** How long a stale copy is kept, in both tiers. */
export const STALE_TTL_MS = 24 * 3_600_000;
export const STALE_LIMITS: MemoryLimits = { entries: 5_000, bytes: 64 * MiB };

/** The isolate's state, by name. Holders live as long as the isolate (module scope). */
export const namespaces = {
  /**
   * A keyed read asked again (trends, themes, topics, entities, articles, one URL's profiles, tracking
   * lists, category analytics) costs no round trip; identical requests in flight join the first one's.
   * @tier isolate
   * @key database, redis prefix, path, query, scope (project, plan, markets, plan categories, history, add-ons, key kind), minute of now
   * @lifetime ISOLATE_CACHE_SECONDS (default 10 s)
   * @stale never
   * @bounds 1,000 entries, 32 MiB
   * @owner shared/cache/edge-answers.ts
   */
  edgeAnswers: {
    held: new IsolateCache<Value<'edgeAnswers'>>({ entries: 1_000, bytes: 32 * MiB }),
    flights: new Flights<Value<'edgeAnswers'> | undefined>(),
  },
  /**
   * A warm geo read costs no SQL; in front of the location's cache (cacheApiNamespaces.referenceShared).
   * Identical reads in flight join the first one's.
   * @tier isolate
   * @key sha256 of database, redis prefix, route, scope (what the key changes in the answer: its countries), parameters, minute of now
   * @lifetime REFERENCE_CACHE_SECONDS (default 60 s), or what the location's copy has left
   * @stale never
   * @bounds 1,000 entries, 16 MiB
   * @owner shared/cache/reference.ts
   */
  referenceAnswers: {
    held: new IsolateCache<Value<'referenceAnswers'>>({ entries: 1_000, bytes: 16 * MiB }),
    flights: new Flights<Value<'referenceAnswers'>>(),
  },
  /**
   * A warm aggregate costs no Redis read; identical misses in flight join the first one's.
   * @tier isolate
   * @key redis endpoint, aggregate key (redisNamespaces.aggregates: kind, identity with its scope)
   * @lifetime ISOLATE_CACHE_SECONDS, at most the kind's own lifetime
   * @stale never
   * @bounds 256 entries, 32 MiB
   * @owner shared/aggregates/engine.ts
   */
  aggregateAnswers: {
    held: new IsolateCache<Value<'aggregateAnswers'>>({ entries: 256, bytes: 32 * MiB }),
    flights: new Flights<Value<'aggregateFlights'>>(),
  },
  /**
   * A warm feed page costs no Redis read; identical misses in flight join the first one's.
   * @tier isolate
   * @key redis endpoint, feed page key (redisNamespaces.feedPages: scope among it)
   * @lifetime ISOLATE_CACHE_SECONDS, at most FEED_CACHE_SECONDS
   * @stale never
   * @bounds 256 entries, 32 MiB
   * @owner functions/feed/cache.ts
   */
  feedPages: {
    held: new IsolateCache<Value<'feedPages'>>({ entries: 256, bytes: 32 * MiB }),
    flights: new Flights<Value<'feedPageFlights'>>(),
  },
  /**
   * A public profile check asked again within a minute costs no SQL, and mostly no Redis round trip.
   * No scope: the public routes take no key.
   * @tier isolate
   * @key redis prefix, path, sorted query
   * @lifetime PUBLIC_ANSWER_TTL_MS (60 s)
   * @stale never (shared caches revalidate through Cache-Control)
   * @bounds 2,000 entries, 16 MiB
   * @owner functions/public/edge.ts
   */
  publicAnswers: { held: new IsolateCache<Value<'publicAnswers'>>({ entries: 2_000, bytes: 16 * MiB }) },
  /**
   * Stale beats down: a read answered in the last day still answers while PostgreSQL is unreachable.
   * @tier isolate
   * @key sha256 of key id, path and query, Accept; scope: the copy carries the hash of the key's whole context, checked before it is served
   * @lifetime STALE_TTL_MS (24 h)
   * @stale served only stale: during an outage, to the same key with the same scope
   * @bounds STALE_LIMITS (5,000 entries, 64 MiB); one answer over STALE_MAX_ANSWER_BYTES is not kept
   * @owner shared/stale/middleware.ts
   */
  staleCopies: { held: new IsolateCache<Value<'staleCopies'>>(STALE_LIMITS) },
  /**
   * Every answer's Data-As-Of without a query per request; a burst on an isolate that holds none reads it once.
   * @tier isolate
   * @key database
   * @lifetime used for min(WATERMARK_SECONDS (2 s), ISOLATE_CACHE_SECONDS), held HELD_MS (1 h)
   * @stale answers for a database that cannot be read, for HELD_MS
   * @bounds 16 entries, 4 KiB
   * @owner shared/http/freshness.ts
   */
  watermarks: {
    held: new IsolateCache<{ value: string | null; readAt: number }>({ entries: 16, bytes: 4_096 }),
    flights: new Flights<string | null>(),
  },
  /**
   * A warm cached metrics or roll-up page costs no SQL. An unknown list is never held.
   * @tier isolate
   * @key database, redis prefix, scope (project), list id, minute of now
   * @lifetime ISOLATE_CACHE_SECONDS (default 10 s)
   * @stale never
   * @bounds 5,000 entries, 8 MiB
   * @owner functions/tracking/gates.ts
   */
  listAdmissions: { held: new IsolateCache<Value<'listAdmissions'>>({ entries: 5_000, bytes: 8 * MiB }) },
  /**
   * A warm trend roll-up costs no SQL (the trend's visibility and size). An unknown or hidden trend is never held.
   * @tier isolate
   * @key database, redis prefix, scope (markets), trend id
   * @lifetime ISOLATE_CACHE_SECONDS (default 10 s)
   * @stale never
   * @bounds 5,000 entries, 1 MiB
   * @owner functions/trends/routes/get-trend-rollup.ts
   */
  trendAdmissions: { held: new IsolateCache<number>({ entries: 5_000, bytes: 1 * MiB }) },
  /**
   * Whether a scope covers every market with data, without a query per request. No scope: the same for every caller.
   * @tier isolate
   * @key database, 'markets-with-data'
   * @lifetime ISOLATE_CACHE_SECONDS (default 10 s)
   * @stale never
   * @bounds 16 entries, 256 KiB
   * @owner shared/rollups/coverage.ts
   */
  marketsWithData: { held: new IsolateCache<string[]>({ entries: 16, bytes: 256 * 1024 }) },
  /**
   * The countries with data asked once per request, however many reads need them.
   * @tier isolate
   * @key the request's database client
   * @lifetime the request (held weakly by its client)
   * @stale never
   * @bounds one entry per request in flight
   * @owner shared/rollups/coverage.ts
   */
  marketsPerRequest: { held: new WeakMap<object, Promise<string[]>>() },
  /**
   * A key is read once per isolate, not per request; revocations reach it through the auth version.
   * Also its lookups in flight, and the contexts read before the cache was last forgotten (`outdated`).
   * @tier isolate
   * @key sha256 of the key
   * @lifetime KEY_TTL_MS (30 s); a change reaches it within 2 s through the auth version
   * @stale past its lifetime a key answers while it is read again: the limits read it again before anything is sent
   * @bounds 10,000 entries (the oldest goes)
   * @owner shared/auth/keys.ts
   */
  keyAuth: {
    held: new IsolateMap<string, { auth: Value<'keyAuth'> | null; until: number; loadedAt: number }>(10_000),
    flights: new Flights<Value<'keyAuth'> | null>(),
    outdated: new WeakSet<object>(),
  },
  /**
   * The auth version last seen, and when it was read: a new version drops the cached keys and edge
   * states; an isolate decides limits on its own only while its read is fresh.
   * @tier isolate
   * @key redis prefix
   * @lifetime the isolate (replaced by each read)
   * @stale trusted for AUTH_VERSION_FRESH_MS after its read
   * @bounds one entry per deployment
   * @owner shared/auth/version.ts
   */
  authVersions: { seen: new IsolateMap<string, number>(), readAt: new IsolateMap<string, number>() },
  /**
   * Limits decided at the edge, reconciled with Redis after the answer: keys (`keys`), and the public
   * routes' client addresses (`clients`, built on the first decision).
   * @tier isolate
   * @key redis prefix, key id (or 'ip:' client address)
   * @lifetime FRESH_MS (10 s) for a state, LEASE_MS (10 s) for a grant
   * @stale never decides on a state past FRESH_MS, nor on one read before an auth version change
   * @bounds ENTRIES_MAX entries each (shared/limits/grant.ts)
   * @owner shared/limits/edge.ts, shared/limits/ip.ts
   */
  edgeLimits: { keys: new IsolateSlot<Value<'edgeLimits'>>(), clients: new IsolateSlot<Value<'edgeLimits'>>() },
  /**
   * The per-minute limiter's ephemeral cache (of @upstash/ratelimit): a hammering key costs no Redis call until its window resets.
   * @tier isolate
   * @key the limiter's key (redisNamespaces.rateLimit, key id)
   * @lifetime until the key's window resets
   * @stale never
   * @bounds one entry per denied key
   * @owner shared/limits/check.ts
   */
  rateLimitBlocks: { held: new IsolateMap<string, number>() },
  /**
   * A client sending random keys is answered 429 before any key lookup (`held`: blocked until), and the
   * 401 limiter's ephemeral cache (`windows`).
   * @tier isolate
   * @key redis prefix, 'rl-401', client address
   * @lifetime until the client's 401 window resets (at least 1 s)
   * @stale never
   * @bounds 10,000 blocked clients (the oldest goes)
   * @owner shared/limits/auth-failures.ts
   */
  authFailures: { held: new IsolateMap<string, number>(10_000), windows: new IsolateMap<string, number>() },
  /**
   * While Redis is unreachable an isolate still limits: an outage opens no unlimited bypass.
   * @tier isolate
   * @key subject (key id, or a 401 limiter key)
   * @lifetime its hits of the last minute
   * @stale never
   * @bounds 50,000 subjects (the oldest goes)
   * @owner shared/limits/local.ts
   */
  localLimits: { held: new IsolateMap<string, number[]>(50_000) },
  /**
   * Push streams: one Redis call per isolate per second reads the signals, whatever the number of
   * streams (`signals`); streams of one scope and filters share one reader (`groups`).
   * @tier isolate
   * @key signals: redis prefix; groups: group id (scope: the stream's project and markets, and its filters)
   * @lifetime signals: the isolate, read again every POLL_MS (1 s) while a stream is open (with the open streams' slots, renewed every SLOT_RENEW_MS); groups: while a member is open
   * @stale a stream sees the signals at most POLL_MS old
   * @bounds one entry per deployment, one group per open scope and filters
   * @owner shared/streams/hub.ts
   */
  streams: {
    signals: new IsolateMap<string, Value<'streamSignals'>>(),
    groups: new IsolateMap<string, Value<'streamGroups'>>(),
  },
  /**
   * The bindings are validated once per env object.
   * @tier isolate
   * @key the bindings object
   * @lifetime the bindings object (held weakly)
   * @stale never: derived from the bindings alone
   * @bounds one entry per env object
   * @owner shared/env.ts
   */
  config: { held: new WeakMap<object, Value<'config'>>() },
  /**
   * One body limiter per distinct limit, not per request.
   * @tier isolate
   * @key byte limit
   * @lifetime the isolate
   * @stale never: derived from the code alone
   * @bounds one entry per limit the areas name
   * @owner shared/http/body-limits.ts
   */
  bodyLimiters: { held: new IsolateMap<number, MiddlewareHandler>() },
  /**
   * Which list-shaped routes answer CSV and NDJSON, and their item schema.
   * @tier isolate
   * @key METHOD /hono/:path
   * @lifetime the isolate (filled as route modules load)
   * @stale never: derived from the code alone
   * @bounds one entry per exportable route
   * @owner shared/http/exports.ts
   */
  exportRoutes: { held: new IsolateMap<string, Value<'exportRoutes'>>() },
  /**
   * An upsert's SQL text is built once, with its rows as parameters (`params`) or from its input table (`copied`).
   * @tier isolate
   * @key upsert spec
   * @lifetime the spec (held weakly)
   * @stale never: derived from the code alone
   * @bounds one entry per upsert spec
   * @owner shared/ingest/write/sql.ts
   */
  upsertStatements: { params: new WeakMap<object, string>(), copied: new WeakMap<object, string>() },
  /**
   * The widget script's ETag is hashed once.
   * @tier isolate
   * @key none
   * @lifetime the isolate (the script changes only with a deploy)
   * @stale never: derived from the code alone
   * @bounds one value
   * @owner functions/public/script.ts
   */
  widgetScriptTag: { held: new IsolateSlot<Promise<string>>() },
  /**
   * MCP tools: one area app per route module (`apps`, by its loader), its OpenAPI document built once
   * (`documents`), each tool described and placed once (`sites`, by tool name).
   * @tier isolate
   * @key apps: the route line's loader; documents: the app; sites: the tool name
   * @lifetime the isolate (documents: the app, held weakly)
   * @stale never: derived from the code alone
   * @bounds one entry per route module, app and tool
   * @owner functions/mcp/catalog.ts
   */
  mcp: {
    apps: new IsolateMap<object, Value<'mcpApps'>>(),
    documents: new WeakMap<object, Value<'mcpDocuments'>>(),
    sites: new IsolateMap<string, Value<'mcpSites'>>(),
  },
};

/** The location's Workers Cache API (`caches.default`, shared by the isolates of a location): its key spaces. */
export const cacheApiNamespaces = {
  /**
   * A geo read one isolate of a location answered serves the others. The origin is never fetched: only
   * a key for the Cache API, which wants a URL.
   * @tier cache-api
   * @key origin, the hash of namespaces.referenceAnswers (scope among it)
   * @lifetime REFERENCE_CACHE_SECONDS (default 60 s)
   * @stale never
   * @owner shared/cache/reference.ts
   */
  referenceShared: { origin: 'https://reference-cache.internal' },
  /**
   * A stale copy outlives the isolate that kept it. The origin is never fetched.
   * @tier cache-api
   * @key origin, the id of namespaces.staleCopies (the copy carries its scope's hash)
   * @lifetime STALE_TTL_MS (24 h)
   * @stale served only stale: while PostgreSQL is unreachable
   * @owner shared/stale/middleware.ts
   */
  staleShared: { origin: 'https://stale-copies.internal' },
} as const;

/** Redis key namespaces, after the deployment's REDIS_PREFIX: `store.key(redisNamespaces.x.name, ...)`. */
export const redisNamespaces = {
  /**
   * An aggregate is computed once across isolates, inline or queued. `format`: stored answers are packed
   * responses (shared/cache/response.ts); the segment keeps older formats apart.
   * @tier redis
   * @key 'agg', format, aggregate kind, sha256 of its identity (scope among it); its lock `<key>:lock`
   * @lifetime the kind's (aggregateKinds); the lock INLINE_LOCK_TTL_SECONDS or QUEUED_LOCK_TTL_SECONDS
   * @stale never
   * @owner shared/aggregates/engine.ts
   */
  aggregates: { name: 'agg', format: 'r2' },
  /**
   * A feed page one isolate built serves the others for 30 s. A page is a read: no lock across isolates.
   * @tier redis
   * @key 'feed', format, sha256 of scope (markets, plan categories, history, project or key), parameters, minute of now
   * @lifetime `seconds` (30 s)
   * @stale never
   * @owner functions/feed/cache.ts
   */
  feedPages: { name: 'feed', format: 'r2', seconds: 30 },
  /**
   * The cron keeps warm what each tenant asked in the last hour.
   * @tier redis
   * @key 'recent-aggregates', 'owners' | 'owner' and scope (the owner: project, or key:<id>)
   * @lifetime 1 h
   * @stale never
   * @owner shared/aggregates/recent.ts
   */
  recentAggregates: { name: 'recent-aggregates', lifetime: 3_600_000 },
  /**
   * The per-minute limit's exact count (@upstash/ratelimit's keys under this prefix).
   * @tier redis
   * @key 'rl', scope (key id)
   * @lifetime the sliding minute window
   * @stale never
   * @owner shared/limits/check.ts
   */
  rateLimit: { name: 'rl' },
  /**
   * The monthly quota's exact count.
   * @tier redis
   * @key 'quota', scope (project), month
   * @lifetime the month
   * @stale never
   * @owner shared/limits/check.ts
   */
  quota: { name: 'quota' },
  /**
   * The slack the isolates of a key or project lease to admit on their own.
   * @tier redis
   * @key 'edge-lease', scope (key id, or the project's quota key)
   * @lifetime LEASE_MS (10 s) per reservation
   * @stale never
   * @owner shared/limits/edge.ts
   */
  edgeLease: { name: 'edge-lease' },
  /**
   * A batch of hits is counted once, however often it is sent.
   * @tier redis
   * @key 'edge-batch', random token
   * @lifetime 10 min
   * @stale never
   * @owner shared/limits/lease.ts
   */
  edgeBatch: { name: 'edge-batch', lifetime: 600_000 },
  /**
   * 401s per client address and minute (@upstash/ratelimit's keys under this prefix).
   * @tier redis
   * @key 'rl-401', client address
   * @lifetime the sliding minute window
   * @stale never
   * @owner shared/limits/auth-failures.ts
   */
  authFailures: { name: 'rl-401' },
  /**
   * Every revocation and plan change bumps it; isolates drop their keys on a change.
   * @tier redis
   * @key 'auth-version'
   * @lifetime the deployment
   * @stale never
   * @owner shared/auth/version.ts
   */
  authVersion: { name: 'auth-version' },
  /**
   * A topic's signal, a group's read shared by the isolates, a key's open streams.
   * @tier redis
   * @key 'streams', then 'signal' and topic | 'read', group (scope and filters), signal, head | 'open', scope (key id)
   * @lifetime signals: the deployment; reads: 120 s (lock 15 s); slots: a 60 s lease, renewed every 15 s while the stream is open
   * @stale never
   * @owner shared/streams/signal.ts, shared/streams/read-once.ts, shared/streams/slots.ts
   */
  streams: { name: 'streams' },
} as const;

/**
 * The aggregate kinds (shared/aggregates/): each name is part of its Redis keys (redisNamespaces.aggregates)
 * and of queued jobs. `seconds`: the kind's lifetime, when not AGGREGATE_TTL_SECONDS (600 s).
 * `consumer`: the jobs consumer computes it (functions/jobs/aggregates.ts holds one of each).
 */
export const aggregateKinds = {
  /** @owner functions/tracking/aggregate.ts */
  trackingMetrics: { name: 'tracking.metrics', consumer: true },
  /** @owner functions/tracking/aggregate.ts */
  trackingRollup: { name: 'tracking.rollup', consumer: true },
  /** @owner functions/trends/aggregate.ts */
  trendRollup: { name: 'trends.rollup', consumer: true },
  /** @owner functions/entities/trending-aggregate.ts */
  entitiesTrending: { name: 'entities.trending', seconds: 60, consumer: true },
} as const;

type Kinds = typeof aggregateKinds;
/** The name of a kind the jobs consumer computes. */
export type ConsumerAggregateName = { [K in keyof Kinds]: Kinds[K]['consumer'] extends true ? Kinds[K]['name'] : never }[keyof Kinds];
