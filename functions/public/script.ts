// GET /public/widget.js's answer: the script, its ETag and caching. Imports no schema and no client:
// the public Worker answers it without loading the route module (the `plain` line, routes.ts).
import type { Context } from 'hono';
import type { Env } from '../../shared/env';
import { namespaces } from '../../shared/cache/namespaces';
import { ifNoneMatch, strongTag } from '../../shared/http/etag';
import { WIDGET_SOURCE } from './widget-source';

/** The script changes only with a deploy: an hour in browsers, a day at shared caches. */
const SCRIPT_CACHE_CONTROL = 'public, max-age=3600, s-maxage=86400, stale-while-revalidate=604800';
const scriptEtag = namespaces.widgetScriptTag.held;

export async function serveScript(c: Context<Env>): Promise<Response> {
  const etag = await (scriptEtag.value ??= strongTag(WIDGET_SOURCE));
  const headers = { ETag: etag, 'Cache-Control': SCRIPT_CACHE_CONTROL };
  if (ifNoneMatch(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
  return c.body(WIDGET_SOURCE, 200, { ...headers, 'Content-Type': 'text/javascript; charset=utf-8' });
}
