// Long-lived clients in Node processes (npm start, the gateway, scripts) must survive PostgreSQL or
// Redis restarting: a connection that dies emits 'error', and an 'error' event without a listener
// ends the process. Pools get listeners on themselves and on every client they create (a client
// that is checked out but between queries reports its death as an event, not as a rejected query);
// the pool then drops the dead client and the next connect() opens a fresh one.

interface EventSource {
  on(event: 'error', listener: (err: Error) => void): unknown;
}
interface PoolLike extends EventSource {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'connect', listener: (client: EventSource) => void): unknown;
}

export function guardPool<P extends PoolLike>(pool: P, name: string, log: (line: string) => void): P {
  pool.on('error', (err: Error) => log(`${name}: idle connection lost (${err.message}); the next query reconnects`));
  pool.on('connect', (client: EventSource) => {
    client.on('error', (err: Error) => log(`${name}: connection lost (${err.message}); the next query reconnects`));
  });
  return pool;
}

/**
 * If something still escapes (an unhandled error or rejection), stop the whole process with a
 * clear message rather than leave a half-working API behind: `cleanup` stops the children.
 */
export function exitOnFatal(name: string, cleanup: () => Promise<void> | void): void {
  let dying = false;
  const die = async (kind: string, err: unknown) => {
    if (dying) return;
    dying = true;
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    console.error(
      `[${name}] fatal ${kind}: ${message}\n[${name}] stopping: a part of ${name} failed, so nothing is left half-working; start it again.`,
    );
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    try {
      await cleanup();
    } finally {
      process.exit(1);
    }
  };
  process.on('uncaughtException', (err) => void die('error', err));
  process.on('unhandledRejection', (err) => void die('rejection', err));
}
