// Loads records through the product's own ingest path, in one transaction-per-batch client.
import { ingest } from '../../shared/ingest/index';
import type { World } from './world';

export async function seed(world: World, records: object[]) {
  const client = await world.pool().connect();
  try {
    const summary = await ingest(
      client,
      records.map((r) => JSON.stringify(r)),
    );
    if (summary.skipped > 0) throw new Error(`seed skipped lines: ${JSON.stringify(summary.errors.slice(0, 5))}`);
    return summary;
  } finally {
    client.release();
  }
}
