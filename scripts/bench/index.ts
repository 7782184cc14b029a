// `npm run bench -- <name> [options]` (names below): benchmarks with a baseline measured in
// the same run (docs/BENCHMARKS.md has the latest results and what each one measures).
import { log } from './stats';

const COMMANDS: Record<string, () => Promise<{ run(argv: string[]): Promise<void> }>> = {
  ingest: () => import('./ingest'),
  'ingest:profile': () => import('./ingest-profile'),
  rollups: () => import('./rollups'),
  'rollups:load': () => import('./rollups-load-cli'),
  'rollups:explain': () => import('./rollups-explain'),
  middleware: () => import('./middleware'),
  tracking: () => import('./tracking'),
  load: () => import('./load'),
  trends: () => import('./trends'),
  entities: () => import('./entities'),
  public: () => import('./public'),
  feed: () => import('./feed'),
  startup: () => import('./startup'),
  distance: () => import('./distance'),
  'startup:profile': () => import('./startup-profile'),
  chaos: () => import('./chaos'),
  routes: () => import('./routes'),
  soak: () => import('./soak'),
  freshness: () => import('./freshness'),
  streams: () => import('./streams'),
};

const [name, ...argv] = process.argv.slice(2);
const load = name ? COMMANDS[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(COMMANDS).join('|')}> [options]`);
  process.exit(2);
}
try {
  await (await load()).run(argv);
  process.exit(0);
} catch (err) {
  log(`bench ${name} failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
}
