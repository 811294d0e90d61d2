import path from 'node:path';
import type { Config } from '../config.js';
import type { Database } from './database.js';
import { openPgDatabase } from './pg.database.js';
import { openPgliteDatabase } from './pglite.database.js';

export async function openDatabase(config: Pick<Config, 'database' | 'dataDir'>): Promise<Database> {
  if (config.database.kind === 'postgres') return openPgDatabase(config.database.url, config.database.poolSize);
  return openPgliteDatabase(path.join(config.dataDir, 'pgdata'), { sharedBuffers: config.database.sharedBuffers });
}
