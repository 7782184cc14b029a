// `npm run db:migrate`: applies drizzle/ migrations to DATABASE_URL (or the embedded database).
import { migrate } from './lib/migrations';
import { connect } from './lib/connect';

const conn = await connect();
const client = await conn.pool.connect();
try {
  const applied = await migrate(client, (line) => console.log(line));
  console.log(applied.length ? `${applied.length} migration(s) applied` : 'database is up to date');
} finally {
  client.release();
  await conn.close();
}
