// `npm run bench -- rollups:load [--scale bench] [--lines N] [--reload]`: only the (one-time) load of bench_rollups.
import { ensureRollupsData } from './rollups-load';

export async function run(argv: string[]): Promise<void> {
  const { client, info } = await ensureRollupsData({
    reload: argv.includes('--reload'),
    scale: argv.includes('--scale') ? argv[argv.indexOf('--scale') + 1] : 'bench',
    lines: argv.includes('--lines') ? Number(argv[argv.indexOf('--lines') + 1]) : undefined,
  });
  const { rows } = await client.query(`SELECT (SELECT count(*) FROM observations)::int8 AS observations,
    (SELECT count(*) FROM url_profiles)::int8 AS profiles, (SELECT count(*) FROM articles)::int8 AS articles`);
  console.log(JSON.stringify({ ...info, ...rows[0] }));
  await client.end();
}
