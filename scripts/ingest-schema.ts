// `tsx scripts/ingest-schema.ts > docs/ingest.schema.json`: the JSON Schema of one NDJSON ingest
// line, generated from the zod schemas the ingest itself validates with (so they cannot drift).
// Input view: defaults are optional and normalizations (case, `www.`) accept the raw forms.
import { z } from 'zod';
import { ingestRecord } from '../shared/ingest/format/records';

const schema = {
  ...z.toJSONSchema(ingestRecord, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }),
  $id: 'https://discovery-api.local/ingest.schema.json',
  title: 'Discovery analytics ingest line',
  description: 'One line of the NDJSON ingest format (docs/INGEST.md), discriminated by `type`.',
};
console.log(JSON.stringify(schema, null, 2));
