// POST /public/platform-profile/bulk: up to 100 domains in one request and one SQL statement.
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../../shared/http/app';
import { normalizeDomain } from '../../../shared/schemas/domains';
import type { Env } from '../../../shared/env';
import { ApiError } from '../../../shared/http/errors';
import { errorResponses, tooLargeResponse } from '../../../shared/schemas/common';
import { BULK_BODY_MAX_BYTES, BULK_PATH } from '../body-limits';
import { limitedRead } from '../limit';
import { toResult } from '../profile';
import { BULK_MAX, BulkBodySchema, BulkResponseSchema } from '../schemas';

const PATH = BULK_PATH;

const route = createRoute({
  method: 'post',
  path: PATH,
  operationId: 'publicPlatformProfileBulk',
  tags: ['Public profile check'],
  summary: 'Check many domains',
  description:
    `No key. Body \`{"domains": [...]}\` with 1-${BULK_MAX} domains or URLs, \`Content-Type: application/json\` ` +
    `(otherwise 415), at most ${BULK_BODY_MAX_BYTES / 1024} KiB (otherwise 413). One result per entry, in request order: ` +
    'the single check result plus `index`, `input` and `duplicateOf` (the index of the first entry with the same ' +
    'normalized domain, whose result it repeats). An entry that is not a domain is answered in place with ' +
    '`ok: false` and an `error`, without failing the others. The per-IP limit counts one per distinct domain.',
  request: { body: { required: true, content: { 'application/json': { schema: BulkBodySchema } } } },
  responses: {
    200: { description: 'One result per entry.', content: { 'application/json': { schema: BulkResponseSchema } } },
    413: tooLargeResponse(BULK_BODY_MAX_BYTES),
    415: {
      description: 'Content-Type is not application/json.',
      content: { 'application/json': { schema: errorResponses(422)[422].content['application/json'].schema } },
    },
    ...errorResponses(422, 429, 503),
  },
});

/** Before the body is read: the media type (its size is bounded earlier, shared/http/body-limits.ts). */
const jsonOnly: MiddlewareHandler<Env> = async function jsonOnly(c, next) {
  const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(
      415,
      `Content-Type must be application/json (got ${type ? `"${type.slice(0, 100)}"` : 'none'}); send {"domains": [...]}`,
    );
  }
  await next();
};

export function register(app: App) {
  app.post(PATH, jsonOnly);
  app.openapi(route, async (c) => {
    const { domains } = c.req.valid('json');
    const firstIndex = new Map<string, number>();
    const parsed = domains.map((input, index) => {
      const result = normalizeDomain(input);
      if (result.ok && !firstIndex.has(result.domain)) firstIndex.set(result.domain, index);
      return { input, index, result };
    });
    const unique = [...firstIndex.keys()];
    // One per distinct domain, at least one: spent beside the one statement that reads them all.
    const rows = await limitedRead(
      c,
      unique.length,
      async (db) => (unique.length ? (await import('../queries')).profilesFor(db, unique) : []),
      unique.length,
    );
    const byDomain = new Map(rows.map((row) => [row.domain, toResult(row, c.var.config.APP_URL)]));
    const results = parsed.map(({ input, index, result }) => {
      if (!result.ok)
        return {
          index,
          input,
          ok: false as const,
          domain: null,
          error: { msg: `Not a domain or URL: ${result.reason}`, type: 'value_error' },
        };
      const first = firstIndex.get(result.domain)!;
      return { ...byDomain.get(result.domain)!, index, input, duplicateOf: first === index ? null : first };
    });
    const summary = {
      requested: domains.length,
      checked: unique.length,
      duplicates: parsed.filter((p) => p.result.ok && firstIndex.get(p.result.domain) !== p.index).length,
      invalid: parsed.filter((p) => !p.result.ok).length,
      exists: [...byDomain.values()].filter((r) => r.exists).length,
    };
    return c.json({ results, summary }, 200);
  });
}
