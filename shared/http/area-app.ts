// An area app built from its route table (shared/http/route-table.ts) and the route modules loaded so far.
import { createApp, createArea, type App, type AreaOptions } from './app';
import type { RouteModule, RouteTable } from './route-table';

/**
 * The table's area app with its chain `options` (loaded: route-table.ts optionsOf) and the given
 * route modules registered in table order: all of them in the all-in-one app
 * (functions/combined-app.ts), one in a deployed Worker's lazily built route app (shared/http/lazy-area.ts). A mirrored table registers every module once per version, under its
 * prefix.
 */
export function areaApp(table: RouteTable, options: AreaOptions, modules: readonly RouteModule[]): App {
  const area = createArea(options);
  if (!table.mirror) {
    for (const module of modules) module.register(area, { version: '' });
    return area;
  }
  for (const version of table.mirror) {
    const routes = createApp();
    for (const module of modules) module.register(routes, { version });
    area.route(`/${version}`, routes);
  }
  return area;
}
