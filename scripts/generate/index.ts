// `tsx scripts/generate/index.ts --scale <demo|bench|test> --seed <n> [--out file] [--now ISO]`
// Writes deterministic NDJSON (same seed + same --now = same bytes) to stdout or a file,
// streaming: at bench scale only the world (publishers, entities, trends) is held in memory.
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { ArticleFactory, type Stats } from './articles';
import { articleIdSeed, Rng } from './prng';
import { SCALES } from './scales';
import { buildWorld, HOUR, iso, worldRecords } from './world';

interface Args {
  scale: keyof typeof SCALES;
  seed: number;
  out: string | null;
  now: number;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const scale = get('--scale') ?? 'demo';
  if (!(scale in SCALES)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')}`);
  const seed = Number(get('--seed') ?? 1);
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
  const nowArg = get('--now');
  const now = nowArg ? Date.parse(nowArg) : Date.now();
  if (Number.isNaN(now)) throw new Error('--now must be an ISO 8601 timestamp');
  return { scale: scale as Args['scale'], seed, out: get('--out') ?? null, now: Math.floor(now / HOUR) * HOUR };
}

/** Buffers lines into ~1 MB writes and honours backpressure (stdout into a slow consumer). */
class LineWriter {
  private chunk: string[] = [];
  private size = 0;
  lines = 0;

  constructor(private readonly stream: Writable) {}

  async write(line: string): Promise<void> {
    this.chunk.push(line);
    this.size += line.length + 1;
    this.lines++;
    if (this.size >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.chunk.length) return;
    const ok = this.stream.write(`${this.chunk.join('\n')}\n`);
    this.chunk = [];
    this.size = 0;
    if (!ok) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }

  async end(): Promise<void> {
    await this.flush();
    if (this.stream === process.stdout) return;
    await new Promise<void>((resolve, reject) => this.stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
}

// A reader that stops early (`| head`, a loader that has the lines it wanted) closes the pipe: the
// generator ends quietly, as Unix tools do, instead of dying on an unhandled EPIPE.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(0);
});

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const scale = SCALES[args.scale];
  const started = Date.now();
  const rng = new Rng(args.seed);
  const world = buildWorld(rng, scale, args.now);
  const writer = new LineWriter(args.out ? createWriteStream(args.out) : process.stdout);
  for (const record of worldRecords(rng, world)) await writer.write(JSON.stringify(record));

  const stats: Stats = { articles: 0, observations: 0, profiles: 0, trendArticles: 0 };
  const factory = new ArticleFactory(world, rng, new Rng(articleIdSeed(args.seed)));
  const pending: string[] = [];
  const collect = (line: string) => void pending.push(line);
  for (let i = 0; i < scale.urls; i++) {
    factory.emit(collect, stats);
    for (const line of pending) await writer.write(line);
    pending.length = 0;
    if (process.stderr.isTTY && i % 10_000 === 0 && i > 0) {
      process.stderr.write(`\r${i.toLocaleString('en-US')} / ${scale.urls.toLocaleString('en-US')} URLs`);
    }
  }
  await writer.end();
  if (process.stderr.isTTY) process.stderr.write('\r');
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `generated ${args.scale} (seed ${args.seed}, now ${iso(args.now)}): ${writer.lines.toLocaleString('en-US')} lines, ` +
      `${stats.articles.toLocaleString('en-US')} articles, ${stats.profiles.toLocaleString('en-US')} url-market profiles, ` +
      `${stats.observations.toLocaleString('en-US')} observations, ${stats.trendArticles.toLocaleString('en-US')} trend articles, ` +
      `${world.trends.length} trends, ${world.edges.length} edges in ${seconds.toFixed(1)} s\n`,
  );
}

main().catch((e: unknown) => {
  console.error(`generate failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
