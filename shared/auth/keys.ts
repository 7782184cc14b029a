// API keys: generated once, stored as SHA-256 hashes, resolved to an AuthContext.
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiKeys, projects } from '../db/schema/accounts';
import { PLAN_RULES } from '../plans';
import type { AuthContext } from './types';
import { sha256Hex } from './hash';

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

const CACHE_TTL_MS = 30_000;
const cache = new Map<string, { auth: AuthContext | null; until: number }>();
/** Contexts read before the cache was last forgotten: a request holding one is authenticated again. */
const outdated = new WeakSet<AuthContext>();

/**
 * How long a cached key is kept. A revocation or plan change reaches warm isolates sooner, through
 * the auth version (shared/auth/version.ts): within 2 s.
 */
export const KEY_CACHE_SECONDS = CACHE_TTL_MS / 1000;

/** Cache expiry uses wall time, not the business clock: a pinned NOW must not pin the cache. */
export async function resolveKey(db: Db, key: string): Promise<AuthContext | null> {
  // Random strings cost no query and cannot push valid keys out of the isolate's cache.
  if (!KEY_FORMAT.test(key)) return null;
  const nowMs = Date.now();
  const hash = await sha256Hex(key);
  const hit = cache.get(hash);
  if (hit && hit.until > nowMs) return hit.auth;
  const auth = await loadKey(db, hash);
  cache.set(hash, { auth, until: nowMs + CACHE_TTL_MS });
  if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
  return auth;
}

export function forgetCachedKeys(): void {
  for (const { auth } of cache.values()) if (auth) outdated.add(auth);
  cache.clear();
}

/** True for a context read before the cache was forgotten (a key may have been revoked since). */
export function isOutdated(auth: AuthContext): boolean {
  return outdated.has(auth);
}

async function loadKey(db: Db, hash: string): Promise<AuthContext | null> {
  const [row] = await db
    .select({ key: apiKeys, project: projects })
    .from(apiKeys)
    .leftJoin(projects, eq(projects.id, apiKeys.projectId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) return null;
  const { key, project } = row;
  if (!project) {
    const rules = PLAN_RULES.enterprise;
    return {
      keyId: key.id, keyKind: key.kind, projectId: null, plan: null,
      allowedCountries: key.countries, categories: null, apiEnabled: true, mcpEnabled: true,
      subscriptionStatus: 'active', historyDays: rules.historyDays, rateLimitPerMinute: rules.perMinute, addons: {}, limitsMode: 'edge',
    };
  }
  const rules = PLAN_RULES[project.plan];
  const allowed = key.countries ? key.countries.filter((c) => project.countries.includes(c)) : project.countries;
  return {
    keyId: key.id,
    keyKind: key.kind,
    projectId: project.id,
    plan: project.plan,
    allowedCountries: allowed,
    categories: rules.choosesCategories ? (project.categories ?? []) : null,
    apiEnabled: project.apiEnabled,
    mcpEnabled: project.mcpEnabled,
    subscriptionStatus: project.subscriptionStatus,
    historyDays: project.historyDays ?? rules.historyDays,
    rateLimitPerMinute: project.rateLimitPerMinute ?? rules.perMinute,
    addons: project.addons,
    limitsMode: project.limitsMode,
  };
}
