-- Where pgvector exists, embeddings are stored in its own `vector` type (without a fixed dimension,
-- so every knowledge base keeps its own) instead of real[]. Searches and the HNSW indexes read the
-- column through a cast to `vector(<d>)` / `halfvec(<d>)`; from real[] that cast converts an array per
-- row, which made exact scans ~2.5× slower and every HNSW insert and lookup pay for it. From
-- `vector` the cast only checks the dimension. Inserts are unchanged: pgvector casts real[] to
-- vector on assignment. PostgreSQL rebuilds the HNSW indexes on the column as part of the change.
--
-- Without pgvector the column stays real[] and searches scan exactly (see PgVectorIndex). If pgvector
-- is installed later, the casts still work on real[] (slower); running this block again by hand
-- converts the columns.
DO $$
DECLARE
  tab text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    RETURN;
  END IF;
  FOREACH tab IN ARRAY ARRAY['chunks', 'platform_chunks']
  LOOP
    IF (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
        WHERE attrelid = tab::regclass AND attname = 'embedding') = 'real[]' THEN
      EXECUTE format('ALTER TABLE %I ALTER COLUMN embedding TYPE vector USING embedding::vector', tab);
    END IF;
  END LOOP;
END
$$;

-- A chunk is searchable when its document is ready. That used to be a `searchable` flag set on every
-- chunk by an UPDATE at the end of indexing, which wrote each chunk twice: a second HNSW insert per
-- chunk (the costliest part of ingestion) and a dead tuple in the graph. Searches now leave out the
-- chunks of documents that are not ready, found through this small partial index.
CREATE INDEX documents_not_ready_idx ON documents (tenant_id, knowledge_base_id) WHERE status <> 'ready';
ALTER TABLE chunks DROP COLUMN searchable;

-- Planner statistics on embeddings and chunk text are never used and make ANALYZE read every
-- sampled vector (2.5× slower on 10k chunks); the embedded database analyzes itself often.
ALTER TABLE chunks ALTER COLUMN embedding SET STATISTICS 0, ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE platform_chunks ALTER COLUMN embedding SET STATISTICS 0, ALTER COLUMN content SET STATISTICS 0;
