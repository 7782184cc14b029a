// GET /public/platform-profile: does a domain have a Discover publisher profile (no key).
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { normalizeDomain } from '../../../shared/schemas/domains';
import { invalid } from '../../../shared/http/errors';
import { errorResponses } from '../../../shared/schemas/common';
import { toResult } from '../profile';
import { limitedRead } from '../limit';
import { DomainQuerySchema, ProfileResultSchema } from '../schemas';

const route = createRoute({
  method: 'get',
  path: '/public/platform-profile',
  operationId: 'publicPlatformProfile',
  tags: ['Public profile check'],
  summary: 'Check a domain',
  description:
    'No key. Whether a domain (or a URL) has a Discover publisher profile, with its title, followers and newest ' +
    'publications. A domain without a profile answers 200 with `exists: false`; a value that is not a domain or URL ' +
    'is 422. CORS for any origin; `Cache-Control` with `s-maxage` and `stale-while-revalidate`; a strong `ETag` ' +
    '(`If-None-Match` answers 304). Limited per client IP (`RateLimit` headers, 429 with `Retry-After`).',
  request: { query: DomainQuerySchema },
  responses: {
    200: { description: 'The check result.', content: { 'application/json': { schema: ProfileResultSchema } } },
    304: { description: 'Not modified: the `If-None-Match` ETag is current.' },
    ...errorResponses(422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const domain = normalizeDomain(c.req.valid('query').domain);
    if (!domain.ok) throw invalid(['query', 'domain'], `Not a domain or URL: ${domain.reason}`);
    const [row] = await limitedRead(c, 1, async (db) => (await import('../queries')).profilesFor(db, [domain.domain]));
    return c.json(toResult(row!, c.var.config.APP_URL), 200);
  });
}
