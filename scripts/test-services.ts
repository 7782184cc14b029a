// `npm test`'s first step: the suite needs a real PostgreSQL and Redis (tests/setup/global.ts). Where one is
// not answering it is started when the machine has it installed (as .ci/run does); otherwise the run stops
// here with one message saying what to install, instead of every test file failing on its own.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Socket } from 'node:net';

const DATABASE = new URL(process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432');
const REDIS = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

type Service = { name: string; url: URL; defaultPort: number; start: () => boolean; install: string };

const SERVICES: Service[] = [
  {
    name: 'PostgreSQL',
    url: DATABASE,
    defaultPort: 5432,
    install: 'apt-get install postgresql (Debian), or set TEST_DATABASE_SERVER=postgres://user@host:port',
    start: () => {
      if (!existsSync('/etc/postgresql') || !hasCommand('pg_ctlcluster')) return false;
      const [version] = readdirSync('/etc/postgresql');
      return version !== undefined && run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
    },
  },
  {
    name: 'Redis',
    url: REDIS,
    defaultPort: 6379,
    install: 'apt-get install redis-server (Debian), or set TEST_REDIS_URL=redis://host:port',
    start: () =>
      hasCommand('redis-server') &&
      run('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no']),
  },
];

function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function run(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

function answers(url: URL, defaultPort: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(url.port || defaultPort), url.hostname, () => done(true));
  });
}

async function ready(service: Service): Promise<boolean> {
  if (await answers(service.url, service.defaultPort)) return true;
  // Only the machine's own service on its standard port is ours to start.
  const local =
    ['127.0.0.1', 'localhost'].includes(service.url.hostname) && Number(service.url.port || service.defaultPort) === service.defaultPort;
  if (!local || !service.start()) return false;
  for (let i = 0; i < 30; i++) {
    if (await answers(service.url, service.defaultPort)) return true;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return false;
}

const missing: Service[] = [];
for (const service of SERVICES) if (!(await ready(service))) missing.push(service);
if (missing.length > 0) {
  const lines = missing.map((s) => `  - ${s.name} at ${s.url.host || s.url.hostname}: ${s.install}`);
  console.error(`npm test needs a running PostgreSQL and Redis; not answering and not startable here:\n${lines.join('\n')}`);
  process.exit(1);
}
