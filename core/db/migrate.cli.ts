import { loadConfig } from '../config.js';
import { migrate } from './migrator.js';
import { openDatabase } from './open.js';

const config = loadConfig();
const db = await openDatabase(config);
try {
  const applied = await migrate(db);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
} finally {
  await db.close();
}
