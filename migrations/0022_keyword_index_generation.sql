-- How many times stored chunks' keyword indexes (tsvectors) were rewritten by a rebuild
-- (`npm run cli -- keyword-index rebuild`). The flat vector index's snapshots keep each chunk's
-- lexemes and name the generation they were loaded at; a start refuses a snapshot of an earlier
-- one and reads the tables, so lexemes a rebuild rewrote are never restored from a snapshot.
ALTER TABLE database_identity ADD COLUMN keyword_index_generation integer NOT NULL DEFAULT 0;
