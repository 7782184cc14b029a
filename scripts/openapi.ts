// `npm run openapi [-- file]`: the combined OpenAPI 3.1 document, without starting a server.
import { writeFile } from 'node:fs/promises';
import { combinedApp, OPENAPI_INFO } from '../functions/app';

const doc = combinedApp().getOpenAPI31Document({ openapi: '3.1.0', info: OPENAPI_INFO, servers: [{ url: 'https://api.example.com' }] });
const text = `${JSON.stringify(doc, null, 2)}\n`;
const out = process.argv[2];
if (out) {
  await writeFile(out, text);
  console.log(`wrote ${out}: ${Object.keys(doc.paths ?? {}).length} paths`);
} else {
  process.stdout.write(text);
}
