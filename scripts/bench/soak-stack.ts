// `npm start` on embedded defaults (PGlite and the in-process Redis) in a temp DATA_DIR for the soak
// bench (started by the harness: scripts/lib/npm-start.ts), with what the bench does to it from outside: the CLIs run against its gateway (as a user's
// second terminal would), the gateway process paused (SIGSTOP: every Redis and SQL call of the Workers
// times out meanwhile) and the memory of its processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startNpmStart } from '../lib/bench-harness';

export interface SoakStack {
  base: string;
  dataDir: string;
  /** The gateway's own address (from DATA_DIR/gateway.json), for probing POST /sql directly. */
  sqlUrl: string;
  key(name: string): string;
  /** Lines of npm start's output that match `re`. */
  count(re: RegExp): number;
  matching(re: RegExp, max?: number): string[];
  /** `npm run <script> -- args` with DATA_DIR set (so it finds the running gateway); detached. */
  cli(script: string, args: string[]): ChildProcess;
  /** Resident memory (MB) of the gateway process (npm start's node) and of workerd (wrangler dev runs two: summed). */
  memory(): Promise<{ gateway: number; workerd: number }>;
  pauseGateway(ms: number): Promise<void>;
  running(): boolean;
  stop(): Promise<void>;
}

async function processTree(root: number): Promise<{ pid: number; cmd: string }[]> {
  const all: { pid: number; ppid: number; cmd: string }[] = [];
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = await readFile(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = (await readFile(`/proc/${d}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      all.push({ pid: Number(d), ppid, cmd });
    } catch {}
  }
  const out: { pid: number; cmd: string }[] = [];
  const walk = (pid: number) => {
    for (const p of all.filter((q) => q.ppid === pid)) {
      out.push(p);
      walk(p.pid);
    }
  };
  walk(root);
  return out;
}

async function rssMb(pid: number | undefined): Promise<number> {
  if (!pid) return Number.NaN;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb / 1024;
}

export async function startSoakStack(dataDir: string, port: number, readyWithinMs = 240_000): Promise<SoakStack> {
  const logFile = createWriteStream(join(dataDir, 'npm-start.log'));
  // Kept whole (the log file too): the report counts watchdog lines and timeouts in it.
  const lines: string[] = [];
  let partial = '';
  const onOutput = (b: Buffer) => {
    logFile.write(b);
    const parts = (partial + b.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  };
  const start = await startNpmStart({ dataDir, port, embedded: true, readyWithinMs, onOutput }).catch((err) => {
    logFile.end();
    throw err;
  });
  const { base, child } = start;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const tree = await processTree(child.pid!);
  // tsx runs dev.ts in a child node process: the deepest process whose command names dev.ts.
  const gatewayPid = tree.filter((p) => p.cmd.includes('scripts/dev.ts')).at(-1)?.pid;
  const workerdPids = () => processTree(child.pid!).then((t) => t.filter((p) => /\bworkerd$/.test(p.cmd.split(' ')[0])).map((p) => p.pid));
  return {
    base,
    dataDir,
    sqlUrl: start.gateway().neonHttpUrl,
    key: start.key,
    count: (re) => lines.filter((l) => re.test(l)).length,
    matching: (re, max = 5) => lines.filter((l) => re.test(l)).slice(0, max),
    cli: (script, args) =>
      spawn('npm', ['run', '--silent', script, '--', ...args], { env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] }),
    memory: async () => {
      let workerd = 0;
      for (const pid of await workerdPids()) workerd += await rssMb(pid);
      return { gateway: await rssMb(gatewayPid), workerd };
    },
    async pauseGateway(ms) {
      if (!gatewayPid) return;
      process.kill(gatewayPid, 'SIGSTOP');
      await new Promise((r) => setTimeout(r, ms));
      process.kill(gatewayPid, 'SIGCONT');
    },
    running: start.running,
    async stop() {
      await start.stop(15_000);
      logFile.end();
    },
  };
}
