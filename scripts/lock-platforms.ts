// `npm run lock:platforms`: the npm registry mirror these machines reach lacks some platform builds
// (e.g. workerd for macOS and Windows at our versions), so npm leaves them out of package-lock.json
// and `npm ci` then rejects the lock. This adds the entries a full registry would have written:
// optional, with their os/cpu, so npm skips them on other platforms and fetches them where they fit.
// Run it after `npm install` changes the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM = /-(darwin|linux|windows|win32)-(64|x64|arm64)$/;
const OS: Record<string, string> = { darwin: 'darwin', linux: 'linux', windows: 'win32', win32: 'win32' };
const CPU: Record<string, string> = { '64': 'x64', x64: 'x64', arm64: 'arm64' };

type Entry = {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  optionalDependencies?: Record<string, string>;
  license?: string;
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, Entry> };
const packages = lock.packages;

/** Where Node would find `name` from the package at `from` (its own node_modules, then upwards), if it is `version`. */
function resolve(from: string, name: string, version: string): string | undefined {
  for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return packages[candidate].version === version ? candidate : undefined;
    if (!base) return undefined;
  }
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const match = PLATFORM.exec(name);
    if (!match || resolve(path, name, version)) continue;
    // Beside a sibling build that npm did place, else in the dependent's own node_modules.
    const sibling = Object.entries(entry.optionalDependencies!)
      .map(([n, v]) => resolve(path, n, v))
      .find(Boolean);
    const at = sibling ? sibling.replace(/node_modules\/(@[^/]+\/)?[^/]+$/, `node_modules/${name}`) : `${path}/node_modules/${name}`;
    packages[at] = { version, cpu: [CPU[match[2]]], license: packages[sibling ?? '']?.license, optional: true, os: [OS[match[1]]] };
    added++;
  }
}
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(added ? `added ${added} platform entries to package-lock.json` : 'package-lock.json already lists every platform build');
