/** Runs the benchmarks in bench/*.bench.ts one after another (or those named): npm run bench -- [name...] */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './support.js';

const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('-') || /^\d+$/.test(a));
const all = fs.readdirSync(path.join(ROOT, 'bench')).filter((f) => f.endsWith('.bench.ts')).sort();
const chosen = names.length ? all.filter((f) => names.some((n) => f.startsWith(n))) : all;
if (!chosen.length) {
  console.error(`No benchmark matches ${names.join(', ')}. Available: ${all.map((f) => f.replace('.bench.ts', '')).join(', ')}`);
  process.exit(2);
}
for (const file of chosen) {
  console.log(`\n== ${file.replace('.bench.ts', '')}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join('bench', file), ...passThrough], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
