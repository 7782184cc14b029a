// A test file's world: its own database cloned from the migrated template, its own Redis
// namespace, tenants made through the admin module, and requests into the all-in-one Worker.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import worker from '../../functions/index';
import { createKey } from '../../shared/admin/keys';
import { createProject, type NewProject } from '../../shared/admin/projects';
import type { Db } from '../../shared/db/client';
import { createDb } from '../../shared/db/client';
import type { Bindings } from '../../shared/env';
import { rebuildRollups, type RebuildOptions } from '../../shared/ingest/bulk/rebuild';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  key?: string;
  bearer?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Binding overrides for this call only (e.g. a Redis that is down). */
  env?: Record<string, string>;
  /** A queue binding for this call (records what the Worker sends). */
  queue?: unknown;
  /** The Worker to call: default the all-in-one Worker; an area's deployed Worker (functions/<area>/index.ts). */
  worker?: { fetch(request: Request, env: any, ctx: ExecutionContext): Response | Promise<Response> };
}

export interface Tenant {
  projectId: string;
  key: string;
  keyId: string;
}

export interface World {
  env: Bindings & { DATABASE_URL: string };
  db: Db;
  /** A node-postgres compatible pool over the gateway's WebSocket relay (for transactions). */
  pool(): Pool;
  call<T = any>(path: string, options?: CallOptions): Promise<Reply<T>>;
  tenant(project?: Partial<NewProject>, key?: { countries?: string[] }): Promise<Tenant>;
  internalKey(countries?: string[]): Promise<string>;
  setNow(iso: string | undefined): void;
}

function configureDriver() {
  neonConfig.fetchEndpoint = env.NEON_HTTP_ENDPOINT;
  neonConfig.wsProxy = () => env.NEON_WS_PROXY;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
}

async function cloneTemplate(name: string): Promise<string> {
  const admin = neon(env.ADMIN_DATABASE_URL);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${env.TEMPLATE_DATABASE}`);
      break;
    } catch (err) {
      // Two files cloning at the same instant: the template is briefly "accessed by other users".
      if (attempt > 20 || !String((err as Error).message).includes('accessed by other users')) throw err;
      await new Promise((r) => setTimeout(r, 100 + attempt * 50));
    }
  }
  return env.ADMIN_DATABASE_URL.replace(/\/[^/]*$/, `/${name}`);
}

export async function createWorld(name: string): Promise<World> {
  configureDriver();
  const dbName = `t_${name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${env.RUN_ID}`;
  const databaseUrl = await cloneTemplate(dbName);
  const bindings = {
    ...env,
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `${dbName}:${crypto.randomUUID().slice(0, 8)}`,
  } as World['env'];
  // Seeding and naive oracle queries are test tooling: no request statement_timeout on a loaded machine.
  const db = createDb(bindings, 0);
  let pool: Pool | undefined;

  const world: World = {
    env: bindings,
    db,
    pool: () => (pool ??= new Pool({ connectionString: databaseUrl, max: 2 })),
    async call(path, options = {}) {
      const headers = new Headers(options.headers);
      if (options.key) headers.set('X-API-Key', options.key);
      if (options.bearer) headers.set('Authorization', `Bearer ${options.bearer}`);
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
      const request = new Request(`http://api.test${path}`, { method: options.method ?? 'GET', headers, body });
      const ctx = createExecutionContext();
      // A fresh object per call: config is memoised per bindings object, and NOW may have changed.
      const response = await (options.worker ?? worker).fetch(
        request as any,
        { ...bindings, ...options.env, ...(options.queue ? { JOBS_QUEUE: options.queue } : {}) } as any,
        ctx,
      );
      // Read beside the waitUntil work: a stream's loop runs under waitUntil and waits on its reader.
      const [text] = await Promise.all([response.text(), waitOnExecutionContext(ctx)]);
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: response.status, body: parsed as any, headers: response.headers, text };
    },
    async tenant(project = {}, key = {}) {
      const row = await createProject(db, { name: 'Test project', plan: 'scale', countries: ['US', 'GB', 'DE'], ...project });
      const created = await createKey(db, { projectId: row.id, kind: 'project', name: 'test', countries: key.countries ?? null });
      return { projectId: row.id, key: created.key, keyId: created.id };
    },
    async internalKey(countries) {
      return (await createKey(db, { projectId: null, kind: 'internal', name: 'internal', countries: countries ?? null })).key;
    },
    setNow(iso) {
      bindings.NOW = iso;
    },
  };
  return world;
}

/** `expect(reply.status, show(reply)).toBe(200)`: failures print the body. */
export const show = (reply: Reply) => `${reply.status} ${reply.text.slice(0, 2_000)}`;

/**
 * Waits out the last `marginMs` of the wall-clock minute. The per-minute limiter is a sliding window
 * whose previous minute counts floor(weight x hits): a test that counts its hits across a minute's turn
 * reads fewer than it sent. Call before a sequence that must count exactly.
 */
export async function clearOfMinuteTurn(marginMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** Rebuilds the world's roll-ups from the source tables on one pooled connection (what the incremental path is checked against). */
export async function rebuildWorld(world: World, options: RebuildOptions = {}): Promise<void> {
  const client = await world.pool().connect();
  try {
    await rebuildRollups(client, () => {}, options);
  } finally {
    client.release();
  }
}
