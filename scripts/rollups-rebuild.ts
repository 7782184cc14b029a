// `npm run rollups:rebuild [-- --activity-only]`: rebuilds the roll-ups of DATABASE_URL (or the
// embedded database); `--activity-only` rebuilds only the activity hulls from url_dimensions and url_spans;
// `--entities-only` only the entity read models (entity_best, entity_hours).
import { rebuildRollups } from '../shared/ingest/rebuild';
import { connect } from './lib/connect';

const conn = await connect();
const client = await conn.pool.connect();
try {
  await rebuildRollups(client, (line) => console.log(line), {
    activityOnly: process.argv.includes('--activity-only'),
    entitiesOnly: process.argv.includes('--entities-only'),
  });
} finally {
  client.release();
  await conn.close();
}
