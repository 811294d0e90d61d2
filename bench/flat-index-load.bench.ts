/**
 * The flat index's start-up load: how long a process takes to read every chunk's vector and
 * lexemes from the embedded database before searches are served from memory, at several corpus
 * sizes. Time per 10,000 chunks that stays level as the corpus grows means the load is linear.
 *
 *   npx tsx bench/flat-index-load.bench.ts [--sizes 10000,30000] [--rounds 3]
 *
 * The chunks are copies of one ingested chunk (its vector and columns) with lexemes of their own,
 * 60 words drawn from a vocabulary of 50,000, so the lexemes cost what those of varied text do.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { FlatVectorIndex } from '../core/adapters/flat-index/flat.vector-index.js';
import { median, startBenchLore } from './support.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { sizes: { type: 'string', default: '10000,30000' }, rounds: { type: 'string', default: '3' } },
});
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
const silent = pino({ level: 'silent' });

const lore = await startBenchLore({}, 'flat-index-load', silent);
try {
  const { db, runtime, services, scope } = lore;
  const kb = await services.knowledgeBases.create(scope, { name: 'load', dimensions: 1024 });
  await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: 'seed', content: 'One chunk whose vector every copy shares.' });
  await runtime.engine.drain();
  const { rows: columns } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_name = 'chunks' AND column_name NOT IN ('id', 'chunk_index', 'tsv', 'created_at') ORDER BY ordinal_position`,
  );
  const copied = columns.map((c) => c.column_name).join(', ');
  let total = 1;
  const embedderId = services.adapters.embedder.id;
  console.log(`flat index start-up load (PGlite, 1,024 dimensions, keywords kept), median of ${rounds}`);
  for (const size of sizes) {
    // Lexemes: 60 words a chunk from a vocabulary of 50,000 (w0 … w49999).
    await db.query(
      `INSERT INTO chunks (chunk_index, tsv, ${copied})
       SELECT g, (SELECT to_tsvector('simple', string_agg('w' || floor(random() * 50000)::int, ' ')) FROM generate_series(1, 60) WHERE g > 0), ${copied}
       FROM generate_series($1::int, $2::int - 1) g, (SELECT ${copied} FROM chunks LIMIT 1) seed`,
      [total, size],
    );
    total = size;
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const index = new FlatVectorIndex(db, embedderId, services.adapters.vectorIndex, silent);
      const started = performance.now();
      await index.start();
      await index.loaded;
      times.push((performance.now() - started) / 1000);
      await index.close();
    }
    const seconds = median(times);
    console.log(`${String(size).padStart(8)} chunks: ${seconds.toFixed(2)} s (${((seconds * 10_000) / size).toFixed(2)} s per 10,000 chunks)`);
  }
} finally {
  await lore.close();
}
