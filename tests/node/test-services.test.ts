// `npm test`'s first step (scripts/test-services.ts): with the services answering it passes quietly; with
// one that does not answer and is not the machine's own to start, the run stops with one message naming
// what to install.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function services(env: Record<string, string>) {
  return spawnSync(join(import.meta.dirname, '../../node_modules/.bin/tsx'), ['scripts/test-services.ts'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('test services', () => {
  it('passes when PostgreSQL and Redis answer', () => {
    const run = services({});
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
  });

  it('stops with one message naming what to install when Redis does not answer', () => {
    const run = services({ TEST_REDIS_URL: 'redis://127.0.0.1:1' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'npm test needs a running PostgreSQL and Redis; not answering and not startable here:',
      '  - Redis at 127.0.0.1:1: apt-get install redis-server (Debian), or set TEST_REDIS_URL=redis://host:port',
    ]);
  });

  it('names PostgreSQL too when it does not answer', () => {
    const run = services({ TEST_DATABASE_SERVER: 'postgres://postgres@127.0.0.1:1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('  - PostgreSQL at 127.0.0.1:1: apt-get install postgresql');
    expect(run.stderr).not.toContain('Redis at');
  });
});
