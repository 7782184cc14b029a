// API keys: generated once, stored as SHA-256 hashes, resolved to an AuthContext.
import type { Db } from '../db/client';
import { queryRows } from '../db/raw';
import type { Addons, KeyKind, LimitsMode, Plan, SubscriptionStatus } from '../db/schema/accounts';
import { PLAN_RULES } from '../scope/plans';
import type { AuthContext } from './types';
import { sha256Hex } from '../hash';
import { KEY_TTL_MS, namespaces } from '../cache/namespaces';

export { sha256Hex };

const KEY_PREFIX = 'dk_';

/** A new random key: `dk_` + 40 base62 characters (about 238 bits). */
export function generateKey(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  return KEY_PREFIX + [...bytes].map((b) => alphabet[b % 62]).join('');
}

/** What generateKey makes. Anything else cannot be a key: refused without a lookup, and never cached. */
const KEY_FORMAT = /^dk_[0-9A-Za-z]{40}$/;

declare module '../cache/namespaces' {
  interface NamespaceValues {
    keyAuth: AuthContext;
  }
}

/**
 * How long a cached key is kept. A revocation or plan change reaches warm isolates sooner, through
 * the auth version (shared/auth/version.ts): within 2 s.
 */
const CACHE_TTL_MS = KEY_TTL_MS;
/**
 * The isolate's keys (at most 10,000: past it the oldest goes), the lookups in flight
 * (shared/cache/flights.ts), and the contexts read before the cache was last forgotten: a request
 * holding one is authenticated again.
 */
const { held: cache, flights: lookups, outdated } = namespaces.keyAuth;

/**
 * Cache expiry uses wall time, not the business clock: a pinned NOW must not pin the cache. `fresh`:
 * the key as the database has it now (a held context past its lifetime does not answer).
 */
export async function resolveKey(db: Db, key: string, fresh = false): Promise<AuthContext | null> {
  // Random strings cost no query and cannot push valid keys out of the isolate's cache.
  if (!KEY_FORMAT.test(key)) return null;
  const nowMs = Date.now();
  const hash = await sha256Hex(key);
  const hit = cache.get(hash);
  if (hit && hit.until > nowMs) return hit.auth;
  // A burst of requests with a key this isolate has not read yet reads it once.
  const load = () =>
    lookups.once(hash, async () => {
      const auth = await loadKey(db, hash);
      cache.set(hash, { auth, until: nowMs + CACHE_TTL_MS, loadedAt: nowMs });
      return auth;
    });
  // A key past its lifetime answers while it is read again, beside the request's first wave rather
  // than before it (a third sequential round trip every 30 s): its context is outdated, so the limits
  // read it again before anything is sent (joining this read) and run the request again under it
  // should it have changed (shared/limits/middleware.ts). Requests arriving meanwhile wait for the read.
  if (!fresh && hit?.auth && !lookups.has(hash)) {
    load().catch(() => undefined); // the limits' second read reports a failure
    outdated.add(hit.auth);
    return hit.auth;
  }
  return load();
}

/** Tests and benchmarks: every cached key past its lifetime, as CACHE_TTL_MS later. */
export function expireCachedKeys(): void {
  for (const entry of cache.values()) entry.until = 0;
}

export function forgetCachedKeys(): void {
  for (const { auth } of cache.values()) if (auth) outdated.add(auth);
  cache.clear();
}

/**
 * The isolate's first auth version read: keys read in the last `ms` keep answering until `ms` from
 * now (then they are read again), so a change made before the version was first read still reaches
 * them within 2 x `ms`; older ones are forgotten. A cold isolate's first request then needs no
 * second lookup of the key it has just read.
 */
export function shortenCachedKeys(ms: number, nowMs = Date.now()): void {
  for (const [hash, entry] of cache) {
    if (entry.loadedAt >= nowMs - ms) {
      entry.until = Math.min(entry.until, nowMs + ms);
      continue;
    }
    if (entry.auth) outdated.add(entry.auth);
    cache.delete(hash);
  }
}

/** True for a context read before the cache was forgotten (a key may have been revoked since). */
export function isOutdated(auth: AuthContext): boolean {
  return outdated.has(auth);
}

/** The key and its project: the columns loadKey reads (tables in shared/db/schema/accounts.ts). */
interface KeyRow {
  id: string;
  kind: KeyKind;
  key_countries: string[] | null;
  project_id: string | null;
  plan: Plan | null;
  project_countries: string[] | null;
  categories: string[] | null;
  api_enabled: boolean | null;
  mcp_enabled: boolean | null;
  subscription_status: SubscriptionStatus | null;
  history_days: number | null;
  rate_limit_per_minute: number | null;
  addons: Addons | null;
  limits_mode: LimitsMode | null;
}

/**
 * Plain SQL (one statement, as before): the key lookup runs on every keyed first request, and
 * drizzle's table definitions and query builder cost that request more than the query itself.
 */
const KEY_QUERY = `select k.id, k.kind, k.countries as key_countries, p.id as project_id, p.plan, p.countries as project_countries,
  p.categories, p.api_enabled, p.mcp_enabled, p.subscription_status, p.history_days, p.rate_limit_per_minute, p.addons, p.limits_mode
  from api_keys k left join projects p on p.id = k.project_id
  where k.key_hash = $1 and k.revoked_at is null limit 1`;

async function loadKey(db: Db, hash: string): Promise<AuthContext | null> {
  const [row] = await queryRows<KeyRow>(db, KEY_QUERY, [hash]);
  if (!row) return null;
  if (row.project_id === null) {
    const rules = PLAN_RULES.enterprise;
    return {
      keyId: row.id,
      keyKind: row.kind,
      projectId: null,
      plan: null,
      allowedCountries: row.key_countries,
      categories: null,
      apiEnabled: true,
      mcpEnabled: true,
      subscriptionStatus: 'active',
      historyDays: rules.historyDays,
      rateLimitPerMinute: rules.perMinute,
      addons: {},
      limitsMode: 'edge',
    };
  }
  const plan = row.plan!;
  const projectCountries = row.project_countries!;
  const rules = PLAN_RULES[plan];
  const allowed = row.key_countries ? row.key_countries.filter((c) => projectCountries.includes(c)) : projectCountries;
  return {
    keyId: row.id,
    keyKind: row.kind,
    projectId: row.project_id,
    plan,
    allowedCountries: allowed,
    categories: rules.choosesCategories ? (row.categories ?? []) : null,
    apiEnabled: row.api_enabled!,
    mcpEnabled: row.mcp_enabled!,
    subscriptionStatus: row.subscription_status!,
    historyDays: row.history_days ?? rules.historyDays,
    rateLimitPerMinute: row.rate_limit_per_minute ?? rules.perMinute,
    addons: row.addons!,
    limitsMode: row.limits_mode!,
  };
}
