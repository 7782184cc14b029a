// The PostgreSQL server behind the gateway, and node-postgres pools per database name.
// One pool per database lets tests use one database per test file: the Neon HTTP request names
// its database in Neon-Connection-String, and we connect to that database on the same server.
import pg from 'pg';

export interface PgTarget {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  /** PGlite has a single database: every name maps to it. */
  singleDatabase: boolean;
}

export function targetFromUrl(databaseUrl: string): PgTarget {
  const u = new URL(databaseUrl);
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must be postgres://..., got ${u.protocol}`);
  }
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || 'postgres',
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres',
    singleDatabase: false,
  };
}

export class PgPools {
  private readonly pools = new Map<string, pg.Pool>();

  constructor(
    readonly target: PgTarget,
    private readonly log: (line: string) => void,
  ) {}

  /** `name` comes from the client's connection string; empty means the target's default. */
  get(name: string | undefined): pg.Pool {
    const database = this.target.singleDatabase || !name ? this.target.database : name;
    let pool = this.pools.get(database);
    if (!pool) {
      pool = new pg.Pool({
        host: this.target.host,
        port: this.target.port,
        user: this.target.user,
        password: this.target.password,
        database,
        // Names these connections in pg_stat_activity and in the PGlite watchdog's log lines.
        application_name: 'gateway POST /sql',
        max: 4,
        // Short idle time: tests drop their databases, and idle connections would block DROP.
        idleTimeoutMillis: 2000,
        allowExitOnIdle: true,
      });
      // An idle client can die (server restart, DROP DATABASE ... FORCE): log, never crash.
      pool.on('error', (err) => this.log(`pg pool ${database}: ${err.message}`));
      // A checked-out client between queries reports its death as an event too.
      pool.on('connect', (client) => client.on('error', (err) => this.log(`pg client ${database}: ${err.message}`)));
      this.pools.set(database, pool);
    }
    return pool;
  }

  async closeAll(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.end().catch(() => undefined)));
  }
}
