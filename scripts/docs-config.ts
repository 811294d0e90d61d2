/** Writes docs/configuration.md from core/config.ts's schema (a test checks the committed page). */
import { writeFileSync } from 'node:fs';
import { configurationReference } from '../core/config-reference.js';

const target = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(target, configurationReference());
console.log(`wrote ${target.pathname}`);
