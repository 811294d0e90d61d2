/**
 * Writes client/openapi.d.ts, the typed client's types, from a running Lore's OpenAPI document:
 *   npm run client:generate [-- http://localhost:8080]
 * A test compares the committed file with what the live document gives.
 */
import { writeFileSync } from 'node:fs';
import { clientTypes } from '../client/generate.js';

const base = process.argv[2] ?? 'http://localhost:8080';
const document: unknown = await (await fetch(`${base}/v1/openapi.json`)).json();
const target = new URL('../client/openapi.d.ts', import.meta.url);
writeFileSync(target, await clientTypes(document));
console.log(`wrote ${target.pathname} from ${base}/v1/openapi.json`);
