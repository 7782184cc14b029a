// Security headers on every answer (docs/SECURITY.md "Headers and errors"): no MIME sniffing, no referrer leaking ids in URLs,
// and a Content-Security-Policy per kind of answer. JSON and scripts need nothing, so they get
// `default-src 'none'`; the two HTML pages get only what they load: /docs (Scalar: its bundle from
// this deployment's assets, an inline boot script and inline styles, /openapi.json fetched from
// here) and /public/widget-demo (its inline style, /public/widget.js, whose fetches go to this
// origin). No page may be framed by another site.
import type { MiddlewareHandler } from 'hono';

const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

export function securityHeaders(): MiddlewareHandler {
  return async function securityHeaders(c, next) {
    await next();
    const headers = c.res.headers;
    // Area apps nested in one app each carry this middleware: the first (innermost) one decides.
    if (headers.has('X-Content-Type-Options')) return;
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'no-referrer');
    const html = /^text\/html/i.test(headers.get('Content-Type') ?? '');
    headers.set('Content-Security-Policy', html ? PAGE_CSP : DATA_CSP);
  };
}
