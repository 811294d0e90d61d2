import { createRequire } from 'node:module';
import type * as UsearchModule from 'usearch';

const require = createRequire(import.meta.url);

/**
 * The usearch module, loaded through its CommonJS build: its ES module build cannot find its
 * native binary (it walks up from an empty directory name forever).
 */
export const usearch = require('usearch') as typeof UsearchModule;
