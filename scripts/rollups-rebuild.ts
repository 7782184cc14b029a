// `npm run rollups:rebuild [-- --activity-only]`: rebuilds the roll-ups of DATABASE_URL (or the
// embedded database); `--activity-only` rebuilds only the activity hulls from url_dimensions and url_spans;
// `--entities-only` only the entity read models (entity_best, entity_hours, entity_*_tops);
// `--entity-tops-only` only the trending tops (entity_hour_tops, entity_day_tops). What a bulk load left
// behind when it died is finished first: its staged hours merged, its dropped indexes recreated
// (docs/INGEST.md "Bulk loads").
import { restoreDeferredIndexes } from '../shared/ingest/bulk/deferred-indexes';
import { rebuildRollups } from '../shared/ingest/bulk/rebuild';
import { mergeStagedObservations } from '../shared/ingest/bulk/staged-observations';
import { connect } from './lib/connect';

const conn = await connect();
const client = await conn.pool.connect();
try {
  await mergeStagedObservations(client);
  await restoreDeferredIndexes(client);
  await rebuildRollups(client, (line) => console.log(line), {
    activityOnly: process.argv.includes('--activity-only'),
    entitiesOnly: process.argv.includes('--entities-only'),
    entityTopsOnly: process.argv.includes('--entity-tops-only'),
  });
} finally {
  client.release();
  await conn.close();
}
