// COPY for ingest over a node-postgres client (IngestOptions.copyFrom). Only those are given it: the
// other connections (Neon's driver, in Node and in the Workers) stage a bulk load's hours by INSERT.
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyStream } from 'pg-copy-streams';
import type { CopyFrom } from '../../shared/ingest/write/types';

/** Runs each COPY ... FROM STDIN on `client`, queued after the statements sent before it. */
export const copyFromClient =
  (client: pg.Client): CopyFrom =>
  async (statement, data) => {
    const stream = client.query(copyStream(statement));
    stream.end(data);
    await finished(stream);
  };
