// `npm run assets` (run before start, build and test): copies the static files the Workers serve
// from `assets/` out of node_modules, so /docs renders with no CDN: Scalar's standalone bundle
// (@scalar/api-reference, the same UI the CDN would send) at /docs/scalar/standalone.js.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
export const SCALAR_ASSET = '/docs/scalar/standalone.js';

// The package's exports map hides dist/browser, so read it from node_modules directly.
const source = join(ROOT, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js');
const target = join(ROOT, 'assets', SCALAR_ASSET);

if (!existsSync(target) || statSync(target).mtimeMs < statSync(source).mtimeMs || statSync(target).size !== statSync(source).size) {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, target);
  console.log(`[assets] ${SCALAR_ASSET} <- @scalar/api-reference (${(statSync(target).size / 1024).toFixed(0)} KiB)`);
}
