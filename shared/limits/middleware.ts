// Plan gates, per-minute rate limit and monthly quota for every keyed request, before any data is
// sent (a read runs beside its limit call: limits() below); RateLimit headers on every keyed response.
import type { Context, ExecutionContext, MiddlewareHandler } from 'hono';
import type { Env } from '../env';
import { coded } from '../http/errors';
import { iso } from '../format';
import { mcpPostOf, rerunEnv, rerunOf, type Channel } from './channel';
import { assertGates } from './plan-gates';
import { isOutdated } from '../auth/keys';
import type { AuthContext } from '../auth/types';
import { reauthenticate } from '../auth/middleware';
import type { LimitState } from './check';
import { edgeLimits } from './edge';
import { policyHeader, rateLimitHeader, type PolicyState } from './headers';

const MONTH_WINDOW_SECONDS = 2_592_000;
/** Paths that report usage and must not spend it. */
const QUOTA_EXEMPT: ReadonlySet<string> = new Set(['/v1/usage']);
const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

function policies(state: LimitState, nowMs: number): PolicyState[] {
  const { minute, month } = state;
  const list: PolicyState[] = [
    {
      name: minute.mode === 'local' ? 'minute-local' : 'minute',
      quota: minute.limit,
      windowSeconds: 60,
      remaining: minute.remaining,
      resetSeconds: seconds(minute.resetMs - nowMs),
    },
  ];
  if (month) {
    list.push({
      name: 'month',
      quota: month.limit,
      windowSeconds: MONTH_WINDOW_SECONDS,
      remaining: Math.max(0, month.limit - month.used),
      resetSeconds: seconds(month.resetMs - nowMs),
    });
  }
  return list;
}

function headerValues(state: LimitState, nowMs: number): Record<string, string> {
  const list = policies(state, nowMs);
  return { 'RateLimit-Policy': policyHeader(list), RateLimit: rateLimitHeader(list) };
}

/**
 * Gives a spent request back: it did not reach data (an error, refused by a limit) or was a 304.
 * A hit decided at the edge and not sent yet is taken back in the isolate.
 */
function refund(c: Context<Env>, quotaKey: string | null, local = false) {
  if (!quotaKey || (local && edgeLimits.refund(c.var.store, c.var.auth))) return;
  c.executionCtx.waitUntil(c.var.store.redis.decr(quotaKey).catch(() => undefined));
}

export interface LimitsOptions {
  /** The door (plan-gates.ts): a key read again after its limit call passes its gates again. */
  channel?: Channel;
  /** False for POST /mcp: the tool calls it carries spend quota (as REST requests), the POST does not. */
  spendsQuota?: boolean;
  /**
   * The area app's own fetch: a read that ran beside its limit call under a key whose plan or markets
   * changed meanwhile runs again through it, under the key as it is now, with the decision already taken.
   * Without it every request is decided before its reads.
   */
  again?: (request: Request, env: object, ctx: ExecutionContext) => Response | Promise<Response>;
}

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
/** The parts of a key that shape an answer: the same JSON means the same answer. */
const sameKey = (a: AuthContext, b: AuthContext) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Limits before data, without waiting for them: a read runs the rest of its chain beside its limit
 * call, so its cache lookup travels in the same Redis wave (auto-pipelined) and a fresh answer costs
 * that wave and one to PostgreSQL; a decision taken at the edge (shared/limits/edge.ts) is immediate
 * anyway. Nothing is sent before the limits admit it: a refused read's answer is dropped for the 429,
 * and a key that changed meanwhile is read again and the request runs again under it. A key this
 * isolate saw refused lately, /v1/usage (it reports the decision) and MCP tool calls (prepaid) wait for
 * their decision first.
 */
export function limits(options: LimitsOptions = {}): MiddlewareHandler<Env> {
  return async function limits(c, next) {
    const now = new Date();
    const charge = (options.spendsQuota ?? true) && !QUOTA_EXEMPT.has(c.req.path);
    // An MCP tool call's per-minute hit was counted by the POST /mcp carrying it (the first call of a batch).
    const post = mcpPostOf(c.env);
    const { auth, store } = c.var;
    const decided = rerunOf(c.env)?.decision;
    // Edge mode decides here from the isolate's counters (shared/limits/edge.ts); strict mode and
    // /v1/usage (which reports exact usage) ask Redis on every request.
    const deciding =
      decided ??
      edgeLimits.decide(store, auth, now, {
        charge,
        sync: auth.limitsMode === 'strict' || !charge,
        decided: post?.takeMinute(),
        later: (work) => c.executionCtx.waitUntil(work),
      });
    // A read runs beside its decision; `rerun` runs it again should its key have changed meanwhile.
    const rerun =
      !decided && charge && !post && READS.has(c.req.method) && !edgeLimits.refusedLately(store, auth) ? options.again : undefined;
    const beside = rerun ? next() : undefined;
    const [decision, read] = await Promise.allSettled([deciding, beside]);
    if (decision.status === 'rejected') throw decision.reason;
    const { state, local } = decision.value;
    c.set('limits', state);
    // The auth version changed while this request's key came from the isolate's cache: read it again.
    if (isOutdated(auth)) {
      try {
        await reauthenticate(c);
        // The key as it is now passes its gates again (POST /mcp with MCP switched off meanwhile).
        assertGates(c, c.var.auth, options.channel ?? 'rest');
      } catch (err) {
        refund(c, state.quotaKey, local);
        c.res = undefined;
        throw err;
      }
      if (rerun && !sameKey(auth, c.var.auth)) {
        // c.res = undefined first: Hono's setter would copy the dropped answer's headers onto the new one.
        c.res = undefined;
        c.res = await rerun(c.req.raw, rerunEnv(c.env, { decision: decision.value, requestId: c.var.requestId }), c.executionCtx);
        return;
      }
    }
    // A refusal replaces whatever ran beside (undefined first, as above: its headers must not carry over).
    if (!state.minute.success || (state.month && !state.month.success)) c.res = undefined;
    if (!state.minute.success) {
      refund(c, state.quotaKey, local);
      const retry = String(seconds(state.minute.resetMs - now.getTime()) || 1);
      // The sliding window can deny just after its fixed window turns while its weighted count still
      // leaves a fraction of a request: a refused request reports none remaining.
      throw coded(
        'rate_limited',
        `Rate limit of ${state.minute.limit} requests per minute exceeded; retry in ${retry} s.`,
        {},
        {
          'Retry-After': retry,
          ...headerValues({ ...state, minute: { ...state.minute, remaining: 0 } }, now.getTime()),
        },
      );
    }
    if (state.month && !state.month.success) {
      refund(c, state.quotaKey, local);
      const retry = String(seconds(state.month.resetMs - now.getTime()));
      throw coded(
        'quota_exceeded',
        `The monthly quota of ${state.month.limit} requests is used up; it renews at the start of next month (UTC).`,
        { limit: state.month.limit, resets_at: iso(new Date(state.month.resetMs)) },
        { 'Retry-After': retry, ...headerValues({ ...state, month: { ...state.month, used: state.month.limit } }, now.getTime()) },
      );
    }
    if (read.status === 'rejected') throw read.reason;
    if (!beside) await next();
    // The handler may report a newer state (POST /mcp: its tool calls' limits).
    for (const [name, value] of Object.entries(headerValues(c.var.limits, now.getTime()))) c.header(name, value);
    // Errors reached no data; a 304 of a tag this key was sent (etag()) is free revalidation.
    if (c.res.status >= 400 || c.var.freeRevalidation) refund(c, state.quotaKey, local);
    else post?.record(state);
  };
}
