-- Keyword indexes keep short pending lists. A GIN index with fastupdate collects new entries in an
-- unsorted pending list (up to 4 MB by default) that every search reads in full and that only
-- VACUUM or an overflowing insert merges into the index. Measured on PGlite at 10k chunks: with a
-- full pending list the planner priced the index scan so high that it scanned every chunk instead;
-- keyword search p50 17.4 ms, and 5.1 ms once the list was merged. 256 kB keeps inserts batched
-- (each overflow merges a few hundred chunks' entries at once) and searches cheap.
ALTER INDEX chunks_tsv_idx SET (gin_pending_list_limit = 256);
ALTER INDEX platform_chunks_tsv_idx SET (gin_pending_list_limit = 256);
