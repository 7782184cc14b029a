// `npm run openapi [-- file]`: the combined OpenAPI 3.1 document, without starting a server.
import { writeFile } from 'node:fs/promises';
import { combinedApp, openApiDocument } from '../functions/combined-app';

const doc = openApiDocument(await combinedApp());
const text = `${JSON.stringify(doc, null, 2)}\n`;
const out = process.argv[2];
if (out) {
  await writeFile(out, text);
  console.log(`wrote ${out}: ${Object.keys(doc.paths ?? {}).length} paths`);
} else {
  process.stdout.write(text);
}
