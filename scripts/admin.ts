// The operator's CLI: `npm run admin -- <command> [options]` (see `npm run admin -- help`).
import { parseArgs } from 'node:util';
import { announceAuthChange } from '../shared/admin/announce';
import { createKey, listKeys, revokeKey } from '../shared/admin/keys';
import { AdminError, createProject, getProject, listProjects, updateProject } from '../shared/admin/projects';
import type { Addons, LimitsMode, Plan, SubscriptionStatus } from '../shared/db/schema';
import { usage } from './lib/usage';
import { ingestErrors, ingestStatus, Table } from './lib/ingest-runs';
import { connect, storeOf, type Connection } from './lib/connect';

const HELP = `Usage: npm run admin -- <command> [options] [--json]

  project:create --name N --plan start|grow|scale|enterprise [--countries US,GB] [--categories /News,/Sports]
  project:list
  project:show <project_id>
  project:set <project_id> [--plan P] [--countries ..] [--categories ..|all] [--subscription active|trialing|past_due|canceled]
              [--api on|off] [--mcp on|off] [--history-days N] [--rate-limit N] [--limits edge|strict]
              [--addons request_packs=1,extra_entities=5,extra_keywords=20,extra_publishers=2]
  usage <project_id>                                                 month quota, and minute usage per live key
  key:create --project <project_id> [--name N] [--countries US]     a project key (at most 10 live per project)
  key:create --internal|--legacy [--name N] [--countries US,GB]      a key without a project
  key:list [--project <project_id>]
  key:revoke <key_id>
  ingest:status [--since 24h]                                        the drop's recent runs (and any still going): state,
                                                                     lines, bad lines, lines/s, lag from drop to end
  ingest:errors <run>                                                a run's stored bad lines (line number and reason)

Keys are printed once and stored only as SHA-256 hashes. project:set and key:revoke reach every
running isolate within 2 s (they bump the auth version in Redis).

--limits edge (default): limits decided in each isolate, reconciled with Redis in the background
(overshoot at most 10% of the per-minute limit, max(1%, 5) of the monthly quota); strict: Redis
checks every request (one more round trip per cached answer).`;

const list = (value?: string) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
const onOff = (value?: string) => (value === undefined ? undefined : value === 'on' || value === 'true');
const int = (value?: string) => (value === undefined ? undefined : Number.parseInt(value, 10));

type Options = Record<string, string | boolean | undefined>;
type Command = (conn: Connection, args: string[], o: Options) => Promise<unknown>;

const commands: Record<string, Command> = {
  'project:create': ({ db }, _args, o) =>
    createProject(db, {
      name: o.name as string,
      plan: o.plan as Plan,
      countries: list(o.countries as string) ?? [],
      categories: list(o.categories as string) ?? null,
    }),
  'project:list': ({ db }) => listProjects(db),
  'project:show': ({ db }, [id]) => getProject(db, required(id, 'project_id')),
  'project:set': (conn, [id], o) =>
    announced(
      conn,
      updateProject(conn.db, required(id, 'project_id'), {
        ...(o.plan !== undefined && { plan: o.plan as Plan }),
        ...(o.countries !== undefined && { countries: list(o.countries as string) }),
        ...(o.categories !== undefined && { categories: o.categories === 'all' ? null : list(o.categories as string) }),
        ...(o.subscription !== undefined && { subscriptionStatus: o.subscription as SubscriptionStatus }),
        ...(o.api !== undefined && { apiEnabled: onOff(o.api as string) }),
        ...(o.mcp !== undefined && { mcpEnabled: onOff(o.mcp as string) }),
        ...(o['history-days'] !== undefined && { historyDays: int(o['history-days'] as string) }),
        ...(o['rate-limit'] !== undefined && { rateLimitPerMinute: int(o['rate-limit'] as string) }),
        ...(o.addons !== undefined && { addons: addons(o.addons as string) }),
        ...(o.limits !== undefined && { limitsMode: o.limits as LimitsMode }),
      }),
    ),
  usage: async ({ db, info }, [id]) => usage(db, info, required(id, 'project_id')),
  'key:create': ({ db }, _args, o) =>
    createKey(db, {
      projectId: (o.project as string) ?? null,
      kind: o.internal ? 'internal' : o.legacy ? 'legacy' : 'project',
      name: (o.name as string) ?? 'default',
      countries: list(o.countries as string) ?? null,
    }),
  'key:list': ({ db }, _args, o) => listKeys(db, o.project as string | undefined),
  'key:revoke': (conn, [id]) => announced(conn, revokeKey(conn.db, required(id, 'key_id'), new Date())),
  'ingest:status': ({ pool }, _args, o) => ingestStatus(pool, (o.since as string) ?? '24h'),
  'ingest:errors': ({ pool }, [id]) => ingestErrors(pool, required(id, 'run')),
};

/** A change of keys or plans, announced to the running isolates once it is stored. */
async function announced<T>(conn: Connection, change: Promise<T>): Promise<T> {
  const result = await change;
  await announceAuthChange(storeOf(conn.info, 'announcing the change')).catch((err: Error) => {
    console.error(`admin: stored, but not announced (${err.message}): running isolates honour it within 30 s`);
  });
  return result;
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new AdminError(`missing <${name}>`);
  return value;
}

const STRING_OPTIONS = [
  'name',
  'plan',
  'countries',
  'categories',
  'project',
  'subscription',
  'api',
  'mcp',
  'history-days',
  'rate-limit',
  'addons',
  'limits',
  'since',
];
const ADDONS = ['request_packs', 'extra_entities', 'extra_keywords', 'extra_publishers'] as const;

function addons(value: string): Addons {
  const out: Addons = {};
  for (const pair of list(value) ?? []) {
    const [name, count] = pair.split('=');
    if (!(ADDONS as readonly string[]).includes(name) || !/^\d+$/.test(count ?? '')) {
      throw new AdminError(`--addons takes ${ADDONS.join('|')}=<whole number>, comma-separated; got '${pair}'`);
    }
    out[name as (typeof ADDONS)[number]] = Number(count);
  }
  return out;
}
const FLAG_OPTIONS = ['json', 'internal', 'legacy', 'help'];

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      ...Object.fromEntries(STRING_OPTIONS.map((k) => [k, { type: 'string' as const }])),
      ...Object.fromEntries(FLAG_OPTIONS.map((k) => [k, { type: 'boolean' as const }])),
    },
  });
  const [name, ...args] = positionals;
  const command = name ? commands[name] : undefined;
  if (!command || values.help) {
    console.log(HELP);
    process.exit(command || values.help || !name ? 0 : 2);
  }
  const conn = await connect();
  try {
    const result = await command(conn, args, values);
    if (result instanceof Table) console.log(values.json ? JSON.stringify(result.data, null, 2) : result.text);
    else console.log(values.json ? JSON.stringify(result, null, 2) : format(result));
  } finally {
    await conn.close();
  }
}

function format(result: unknown): string {
  if (Array.isArray(result)) return result.length ? result.map((r) => format(r)).join('\n') : '(none)';
  return `${Object.entries(result as Record<string, unknown>)
    .map(([k, v]) => `${k.padEnd(20)} ${v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join(',') : JSON.stringify(v)}`)
    .join('\n')}\n`;
}

main().catch((err: unknown) => {
  const message = err instanceof AdminError ? err.message : (err as Error).message;
  console.error(`admin: ${message}`);
  process.exit(err instanceof AdminError ? 2 : 1);
});
