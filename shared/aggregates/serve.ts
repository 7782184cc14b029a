// Aggregates in a Hono request: the request's services, queue and owner for the engine (engine.ts),
// the outcome noted for the log line, the answer sent as stored or its value handed to the route.
import type { Context } from 'hono';
import { afterResponse } from '../http/after-response';
import { respondAs, type JsonAnswer } from '../cache/response';
import type { Env } from '../env';
import { DATA_AS_OF } from '../http/freshness';
import { serveCached, type Caller, type Served } from './engine';
import { noteOutcome } from '../cache/outcome';
import type { AggregateKind, ServeOptions } from './kind';
import { throwIfRefusal } from './refusal';

/** Who an asked aggregate is counted against: the project, or the key when it has none. */
export const ownerOf = (c: Context<Env>) => c.var.auth?.projectId ?? `key:${c.var.auth?.keyId ?? 'none'}`;

function callerOf(c: Context<Env>): Caller {
  const { db, store, config, clock } = c.var;
  return {
    services: { db, store, config, now: clock.now() },
    queue: c.env.JOBS_QUEUE,
    owner: ownerOf(c),
    later: (work) => void afterResponse(c, work),
  };
}

async function served<R, H, V>(
  c: Context<Env>,
  kind: AggregateKind<R, H, V>,
  request: R,
  admit: ServeOptions<H> | Promise<ServeOptions<H>>,
): Promise<Served<V>> {
  const answer = await serveCached(callerOf(c), kind, request, admit);
  throwIfRefusal(answer.cached);
  noteOutcome(c, answer.outcome);
  return answer;
}

/**
 * The aggregate's value (for routes that wrap it in a larger answer). Notes the outcome (hit, miss or
 * shared, or bypass while Redis is unreachable; `X-Aggregate-Cache` for internal keys). For kinds without `respond`.
 */
export async function serveAggregate<R, H, V>(
  c: Context<Env>,
  kind: AggregateKind<R, H, V>,
  request: R,
  options: ServeOptions<H> | Promise<ServeOptions<H>> = {},
): Promise<V> {
  const answer = await served(c, kind, request, options);
  // The answer built from the value reports the watermark the value was computed with (shared/http/freshness.ts).
  const asOf = answer.cached.headers[DATA_AS_OF];
  if (asOf) c.header(DATA_AS_OF, asOf);
  if ('value' in answer) return answer.value;
  // Stored under the kind's key: the JSON of a value its `compute` returned (with `data_as_of` beside).
  const stored: V = JSON.parse(answer.cached.text);
  return stored;
}

/**
 * The aggregate as the whole 200 answer, sent as stored (text, ETag, headers): a hit costs no
 * parse, stringify or hash. `admit` may be a promise: the cache lookup runs beside it. For kinds
 * without `respond`: the answer is typed by the kind's value, which the route's schema then checks.
 */
export async function serveAggregateResponse<R, H, V>(
  c: Context<Env>,
  kind: AggregateKind<R, H, V>,
  request: R,
  admit: ServeOptions<H> | Promise<ServeOptions<H>> = {},
): Promise<JsonAnswer<V>> {
  const answer = await served(c, kind, request, admit);
  return respondAs<V>(c, answer.cached, answer.outcome === 'hit' || answer.outcome === 'shared');
}
