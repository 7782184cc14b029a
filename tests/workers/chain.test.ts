// The request chains of shared/http/chain.ts, in order: what a keyed route, a request without a key and a
// public route meet, top to bottom (the names are the middlewares' own: each is a named function).
import type { MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import { keyedChain, publicChain, untilKey, type AreaOptions } from '../../shared/http/chain';
import type { Env } from '../../shared/env';
import { publicArea } from '../../functions/public/options';
import { GEO_AREA } from '../../functions/geo/options';

const services: MiddlewareHandler<Env> = async function services(_c, next) {
  await next();
};
const names = (chain: MiddlewareHandler<Env>[]) => chain.map((m) => m.name);
const again = () => new Response(null);

describe('shared/http/chain.ts', () => {
  it("a keyed route's chain, top to bottom", () => {
    expect(names(keyedChain(GEO_AREA as AreaOptions, services, again))).toEqual([
      'observe',
      'staleIfDown',
      'bodyLimits',
      'inputHygiene',
      'services',
      'requireApiKey',
      'planGates',
      'limits',
      'etag',
      'exports',
      'edgeAnswers',
      'freshness',
    ]);
  });

  it('a request without a key meets the keyed chain up to its key check, and nothing after it', () => {
    const keyed = names(keyedChain(GEO_AREA as AreaOptions, services, again));
    const keyless = names(untilKey(GEO_AREA as AreaOptions, services));
    expect(keyless.at(-1)).toBe('requireApiKey');
    expect(keyed.slice(0, keyless.length)).toEqual(keyless);
  });

  it("a public route's chain: its edge answers first, its per-IP limit last", () => {
    expect(names(publicChain(publicArea(), services))).toEqual([
      'observe',
      'publicEdge',
      'bodyLimits',
      'inputHygiene',
      'services',
      'freshness',
      'publicLimit',
    ]);
  });
});
