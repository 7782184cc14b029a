// Where each MCP tool runs: the area app of its REST route's line, holding that line's module only,
// built on the tool's first call, as the route's own area Worker builds it (shared/http/lazy-area.ts). So
// a tool call evaluates one route's schemas and describes one operation, not every area's: the MCP
// Worker's first tools/call no longer builds the whole API and its OpenAPI document (docs/PERFORMANCE.md).
// The tool is described from that app's document, which holds its operation exactly as the whole
// API's does (tests/workers/mcp.test.ts compares them); tools/list builds every tool this way.
import type { App } from '../../shared/http/app';
import { areaApp } from '../../shared/http/area-app';
import { namespaces } from '../../shared/cache/namespaces';
import { once } from '../../shared/once';
import { optionsOf, routesOf, type Loader, type RouteTable } from '../../shared/http/route-table';
import { completeDocument } from '../../shared/schemas/document';
import { REST_ROUTE_TABLES } from '../route-tables';
import { buildTool, TOOL_SPECS, type McpTool, type OpenApiDoc, type ToolSpec } from './tools';

/** A tool and the app its route runs in. */
export interface ToolSite {
  tool: McpTool;
  app: App;
}

/** The first table line that registers `GET path` (an OpenAPI template: `{list_id}` is `:list_id` there). */
function lineOf(path: string): { table: RouteTable; load: Loader } {
  const registered = path.replace(/\{(\w+)\}/g, ':$1');
  for (const table of REST_ROUTE_TABLES) {
    const line = routesOf(table).find(([method, p]) => method === 'GET' && p === registered);
    if (line) return { table, load: line[2] };
  }
  throw new Error(`MCP tool route GET ${path}: in no route table`);
}

declare module '../../shared/cache/namespaces' {
  interface NamespaceValues {
    mcpApps: () => Promise<App>;
    mcpDocuments: OpenApiDoc;
    mcpSites: () => Promise<ToolSite>;
  }
}

/** One app per loader, per isolate: tools whose routes one module registers share it. */
const apps = namespaces.mcp.apps;
const appOf = ({ table, load }: { table: RouteTable; load: Loader }) => {
  let app = apps.get(load);
  if (!app) {
    app = once(async () => {
      const [options, module] = await Promise.all([optionsOf(table), load()]);
      return areaApp(table, options, [module]);
    });
    apps.set(load, app);
  }
  return app();
};

/** An area app's document, built once: tools whose routes one app holds share it. */
const documents = namespaces.mcp.documents;
function documentOf(app: App): OpenApiDoc {
  let doc = documents.get(app);
  if (!doc) {
    // Completed as /openapi.json is (shared/schemas/document.ts): the tools' parameters carry the same ranges.
    const raw = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'tools', version: '1' } });
    doc = completeDocument(raw, app.openAPIRegistry) as OpenApiDoc;
    documents.set(app, doc);
  }
  return doc;
}

const sites = namespaces.mcp.sites;
const siteOf = (spec: ToolSpec) => {
  let site = sites.get(spec.name);
  if (!site) {
    site = once(async () => {
      const app = await appOf(lineOf(spec.path));
      return { tool: buildTool(spec, documentOf(app)), app };
    });
    sites.set(spec.name, site);
  }
  return site();
};

/** The tool named `name` and its app, or undefined when no tool has that name. */
export function toolSite(name: string): Promise<ToolSite> | undefined {
  const spec = TOOL_SPECS.find((s) => s.name === name);
  return spec && siteOf(spec);
}

/** Every tool, in catalog order (tools/list). */
export async function allTools(): Promise<McpTool[]> {
  return (await Promise.all(TOOL_SPECS.map(siteOf))).map((site) => site.tool);
}
