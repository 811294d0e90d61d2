import assert from 'node:assert/strict';
import { EmbeddingEncoder } from '../../core/db/embeddings.js';
import { testDatabases } from '../support/databases.js';

for (const database of testDatabases()) {
  describe(`embedding parameters [${database.name}]`, () => {
    it('carry every vector exactly (as float4), in order, in the format the chunk tables store', async () => {
      const db = await database.get();
      const vectors = [Float32Array.from([0.1, -0.2, 0.3]), Float32Array.from([1e-7, 0.5, -1]), Float32Array.from([0, 0, 0.25])];
      const encoded = (await EmbeddingEncoder.of(db)).encode(vectors);
      const pgvector = (await db.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'")).rows.length > 0;
      assert.equal(encoded.type, pgvector ? 'vector[]' : 'text[]');
      const { rows } = await db.query<{ v: number[] }>(
        `SELECT (${encoded.element('t.emb')})::real[] AS v FROM unnest($1::${encoded.type}) WITH ORDINALITY AS t(emb, n) ORDER BY n`,
        [encoded.value],
      );
      const expected = vectors.map((v) => [...v].map((x) => (pgvector ? x : Number(x.toFixed(6)))));
      // Binary float4s arrive bit for bit; text literals keep the 6 decimals unit vectors need.
      assert.deepEqual(rows.map((r) => r.v.map((x) => (pgvector ? Math.fround(x) : x))), expected);
    });
  });
}
