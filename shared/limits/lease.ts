// One Redis script of the edge limits (shared/limits/edge.ts), in the same pipeline as the per-minute
// limiter: the monthly quota hits of a call, each batch counted at most once (its token is set with
// NX first: a call that timed out after Redis ran it is sent again under the same token and counted
// once), and this isolate's lease of the slack it may admit on its own. A lease is a field of a hash
// per key (the per-minute slack) and per project (the monthly slack): `reservation:expiresAt`. An
// isolate is leased at most its share (the slack over the live holders) of what the other holders
// have not reserved, so the leases of every key and isolate together never exceed the slack, also
// when they join at once; a holder leased nothing still counts among the holders (the others' shares
// shrink to make room for it); a holder asks for no more than it needs (`want`), so what an isolate
// gone quiet still holds leaves the rest to the others; a lease lapses after LEASE_MS unless its holder renews it. The gateway's
// in-process engine runs the same text in its Lua interpreter (scripts/gateway/memory-lua.ts).
import { redisNamespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';

export const LEASE_SCRIPT = `-- discovery-api edge limits: quota batches counted once, a lease of the slack
local now, ms, holder = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local floor, want, n = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[10])
local used = -1
for i = 1, n do
  local quota, token, hits = KEYS[1 + 2 * i], KEYS[2 + 2 * i], tonumber(ARGV[10 + i])
  local value
  if hits ~= 0 and redis.call('SET', token, '1', 'NX', 'PX', ARGV[9]) then
    value = redis.call('INCRBY', quota, hits)
    redis.call('EXPIRE', quota, ARGV[8])
  else
    value = tonumber(redis.call('GET', quota) or '0')
  end
  if i == 1 then used = value end
end
local function share(key, slack)
  local others, holders = 0, 1
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local r, e = string.match(fields[i + 1], '^(%d+):(%d+)$')
    if tonumber(e) <= now then
      redis.call('HDEL', key, fields[i])
    elseif fields[i] ~= holder then
      others = others + tonumber(r)
      holders = holders + 1
    end
  end
  return math.min(math.floor(slack / holders), slack - others)
end
local monthly = tonumber(ARGV[7]) >= 0
local lease = 0
if want > 0 then
  lease = math.min(want, share(KEYS[1], tonumber(ARGV[6])))
  if monthly then lease = math.min(lease, share(KEYS[2], tonumber(ARGV[7]))) end
end
lease = math.max(floor, lease)
local keys = { KEYS[1] }
if monthly then keys[2] = KEYS[2] end
for _, key in ipairs(keys) do
  if want > 0 or lease > 0 then
    redis.call('HSET', key, holder, lease .. ':' .. (now + ms))
    redis.call('PEXPIRE', key, 2 * ms)
  else
    redis.call('HDEL', key, holder)
  end
end
return { used, lease }`;

/** How long a lease holds unless renewed: an isolate recycled or gone idle frees its share after this. */
export const LEASE_MS = 10_000;
const TOKEN_TTL_MS = redisNamespaces.edgeBatch.lifetime;
const QUOTA_TTL_SECONDS = 40 * 24 * 3600;

/** Monthly quota hits sent in one call under one token (negative: refunds of hits sent before). */
export interface Batch {
  quotaKey: string;
  token: string;
  month: number;
}

export interface LeaseRequest {
  /** This isolate and key (one field in each hash). */
  holder: string;
  /** The per-minute lease (per key) and the monthly one (per project; null without a project). */
  minuteKey: string;
  monthKey: string | null;
  minuteSlack: number;
  monthSlack: number;
  /** Lease at least this much (hits admitted under the current lease that this call does not count). */
  floor: number;
  /** The most it asks for (what the isolate needs; 0 when it will not decide on its own, strict mode: only the floor is kept). */
  want: number;
  /** The call's own batch first (its counter's value is answered), then any older batches. */
  batches: Batch[];
}

/** A fresh token for a batch (the token key, namespaced). */
export const batchToken = (store: Store) => store.key(redisNamespaces.edgeBatch.name, crypto.randomUUID());

/** Runs the script: the first batch's counter after it (-1 without one) and the lease granted. */
export async function countAndLease(store: Store, request: LeaseRequest, nowMs: number): Promise<{ used: number; lease: number }> {
  const { batches } = request;
  const keys = [request.minuteKey, request.monthKey ?? request.minuteKey, ...batches.flatMap((b) => [b.quotaKey, b.token])];
  const args = [
    nowMs,
    LEASE_MS,
    request.holder,
    Math.max(0, Math.floor(request.floor)),
    Math.max(0, Math.floor(request.want)),
    Math.max(0, Math.floor(request.minuteSlack)),
    request.monthKey ? Math.max(0, Math.floor(request.monthSlack)) : -1,
    QUOTA_TTL_SECONDS,
    TOKEN_TTL_MS,
    batches.length,
    ...batches.map((b) => b.month),
  ].map(String);
  const [used, lease] = await store.redis.eval<string[], [number, number]>(LEASE_SCRIPT, keys, args);
  return { used: Number(used), lease: Number(lease) };
}
