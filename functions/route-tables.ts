// The REST areas' route tables, in the all-in-one app's order (the OpenAPI document's path order);
// the MCP area follows them there (functions/combined-app.ts). No runtime imports beyond the tables
// (their loaders import the route modules on first use): the MCP endpoint finds a tool's route here
// without loading any other area (functions/mcp/catalog.ts), and without importing its own table.
import { articlesRoutes } from './articles/routes';
import { entitiesRoutes } from './entities/routes';
import { feedRoutes } from './feed/routes';
import { geoRoutes } from './geo/routes';
import { publicRoutes } from './public/routes';
import type { RouteTable } from '../shared/http/route-table';
import { trackingRoutes } from './tracking/routes';
import { trendsRoutes } from './trends/routes';

export const REST_ROUTE_TABLES: readonly RouteTable[] = [
  trackingRoutes,
  feedRoutes,
  publicRoutes,
  geoRoutes,
  trendsRoutes,
  entitiesRoutes,
  articlesRoutes,
];
