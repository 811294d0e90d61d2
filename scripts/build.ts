/**
 * `npm run build [-- --out DIR]`: compiles Lore to JavaScript (default `dist/`) for the production
 * image, so nothing compiles TypeScript at run time, and copies what the code reads from disk beside
 * its modules: package.json (the version), migrations/, the catalogue dictionaries and the portal's assets.
 */
import { execFileSync } from 'node:child_process';
import { cp, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist' } } });
const out = path.resolve(ROOT, values.out);

await rm(out, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], { stdio: 'inherit' });
await cp(path.join(ROOT, 'package.json'), path.join(out, 'package.json'));
await cp(path.join(ROOT, 'migrations'), path.join(out, 'migrations'), { recursive: true });
await cp(path.join(ROOT, 'dictionaries'), path.join(out, 'dictionaries'), { recursive: true });
await cp(path.join(ROOT, 'api/portal/assets'), path.join(out, 'api/portal/assets'), { recursive: true });
console.log(`built ${path.relative(ROOT, out) || '.'}: node ${path.relative(ROOT, path.join(out, 'api/main.js'))}`);
