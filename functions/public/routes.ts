// The public area's route table: /public/* needs no key (its chain: options.ts).
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';

/** routes/widget.ts registers the script and its demo page: one module, loaded once for both lines. */
const widget = () => import('./routes/widget');

export const publicRoutes: RouteTable = {
  options: () => import('./options').then((m) => m.publicArea()),
  routes: [
    ['GET', '/public/platform-profile', () => import('./routes/check-platform-profile')],
    ['POST', '/public/platform-profile/bulk', () => import('./routes/check-platform-profiles-bulk')],
    ['GET', '/public/platform-profile/query', () => import('./routes/query-platform-profiles')],
    // The script's Worker answer needs neither the route module nor a client (shared/http/route-table.ts, `plain`).
    ['GET', '/public/widget.js', widget, () => import('./script').then((m) => m.serveScript)],
    ['GET', '/public/widget-demo', widget],
  ],
};
