-- Keyword search ranks by BM25F (core/search/bm25.ts), which needs, per collection searched (a
-- knowledge base, or a platform corpus), how many chunks it has, their lengths summed (distinct
-- lexemes per chunk) and how many chunks hold each lexeme. PostgreSQL has no BM25 of its own, so
-- Lore keeps these figures: statement triggers on the chunk tables add and subtract them on every
-- insert, delete (the cascades of document, knowledge base, tenant and corpus deletions included)
-- and update, so they are exact at every commit. A chunk being indexed counts as soon as it is
-- written (its document becomes searchable moments later).
--
-- Locks: one statement changes a collection's rows in one sorted pass (its totals row, then its
-- lexemes in order), so two writes to the same collection wait for each other instead of crossing.
--
-- A chunk's tsvector also holds its document's title now, with weight A (the title's lexemes, then
-- the text's): BM25F counts a title holding a word apart from the text. Existing chunks are
-- rewritten here with their language's configuration, as ingestion writes them.

LOCK TABLE chunks, platform_chunks IN SHARE ROW EXCLUSIVE MODE;

UPDATE chunks SET tsv = setweight(to_tsvector(cfg, doc_title), 'A') || to_tsvector(cfg, content)
FROM (VALUES ('en', 'english'::regconfig), ('nl', 'dutch'), ('fr', 'french'), ('de', 'german'), ('es', 'spanish'),
             ('it', 'italian'), ('ro', 'romanian'), ('bg', 'simple')) AS l(language, cfg)
WHERE chunks.language = l.language AND chunks.doc_title <> '';
UPDATE chunks SET tsv = setweight(to_tsvector('simple', doc_title), 'A') || to_tsvector('simple', content)
WHERE (language IS NULL OR language NOT IN ('en', 'nl', 'fr', 'de', 'es', 'it', 'ro', 'bg')) AND doc_title <> '';

-- No foreign keys: a collection is a knowledge base or a corpus. Rows go when their count reaches 0.
CREATE TABLE keyword_collections (
  collection_id uuid PRIMARY KEY,
  chunks        bigint NOT NULL,
  lexemes       bigint NOT NULL
);

CREATE TABLE keyword_terms (
  collection_id uuid NOT NULL,
  lexeme        text NOT NULL,
  chunks        bigint NOT NULL,
  PRIMARY KEY (collection_id, lexeme)
);

INSERT INTO keyword_collections (collection_id, chunks, lexemes)
SELECT knowledge_base_id, count(*), sum(length(tsv)) FROM chunks GROUP BY 1
UNION ALL
SELECT corpus_id, count(*), sum(length(tsv)) FROM platform_chunks GROUP BY 1;

INSERT INTO keyword_terms (collection_id, lexeme, chunks)
SELECT c.knowledge_base_id, u.lexeme, count(*) FROM chunks c, unnest(c.tsv) u GROUP BY 1, 2
UNION ALL
SELECT c.corpus_id, u.lexeme, count(*) FROM platform_chunks c, unnest(c.tsv) u GROUP BY 1, 2;

-- Adds signed changes, collection rows first, each list sorted (the lock order), then drops rows at 0.
CREATE FUNCTION keyword_statistics_apply(
  collection_ids uuid[], chunk_changes bigint[], lexeme_changes bigint[],
  term_collection_ids uuid[], term_lexemes text[], term_changes bigint[]
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO keyword_collections AS k (collection_id, chunks, lexemes)
  SELECT * FROM unnest(collection_ids, chunk_changes, lexeme_changes) ORDER BY 1
  ON CONFLICT (collection_id) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks, lexemes = k.lexemes + EXCLUDED.lexemes;
  IF term_collection_ids IS NOT NULL THEN
    INSERT INTO keyword_terms AS k (collection_id, lexeme, chunks)
    SELECT * FROM unnest(term_collection_ids, term_lexemes, term_changes) ORDER BY 1, 2
    ON CONFLICT (collection_id, lexeme) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks;
    DELETE FROM keyword_terms k USING unnest(term_collection_ids, term_lexemes) AS t(collection_id, lexeme)
    WHERE k.collection_id = t.collection_id AND k.lexeme = t.lexeme AND k.chunks <= 0;
  END IF;
  DELETE FROM keyword_collections WHERE collection_id = ANY(collection_ids) AND chunks <= 0;
END
$$;

-- A statement trigger on a chunk table; TG_ARGV[0] names the collection column. The rows a
-- statement added count +1, those it removed −1 (an update: both).
CREATE FUNCTION keyword_statistics_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rows_changed text;
  collection_ids uuid[];
  chunk_changes bigint[];
  lexeme_changes bigint[];
  term_collection_ids uuid[];
  term_lexemes text[];
  term_changes bigint[];
BEGIN
  rows_changed := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %I AS id, tsv, 1 AS sign FROM added', TG_ARGV[0])
    WHEN 'DELETE' THEN format('SELECT %I AS id, tsv, -1 AS sign FROM removed', TG_ARGV[0])
    ELSE format('SELECT %1$I AS id, tsv, 1 AS sign FROM added UNION ALL SELECT %1$I, tsv, -1 FROM removed', TG_ARGV[0])
  END;
  EXECUTE format(
    'SELECT array_agg(id ORDER BY id), array_agg(n ORDER BY id), array_agg(l ORDER BY id)
     FROM (SELECT id, sum(sign) AS n, sum(sign * length(tsv)) AS l FROM (%s) s GROUP BY id) t
     WHERE n <> 0 OR l <> 0', rows_changed)
  INTO collection_ids, chunk_changes, lexeme_changes;
  EXECUTE format(
    'SELECT array_agg(id ORDER BY id, lexeme), array_agg(lexeme ORDER BY id, lexeme), array_agg(n ORDER BY id, lexeme)
     FROM (SELECT s.id, u.lexeme, sum(s.sign) AS n FROM (%s) s, unnest(s.tsv) u GROUP BY 1, 2 HAVING sum(s.sign) <> 0) t', rows_changed)
  INTO term_collection_ids, term_lexemes, term_changes;
  IF collection_ids IS NULL AND term_collection_ids IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM keyword_statistics_apply(collection_ids, chunk_changes, lexeme_changes, term_collection_ids, term_lexemes, term_changes);
  RETURN NULL;
END
$$;

CREATE TRIGGER chunks_keyword_statistics_inserted AFTER INSERT ON chunks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION keyword_statistics_changed('knowledge_base_id');
CREATE TRIGGER chunks_keyword_statistics_deleted AFTER DELETE ON chunks
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION keyword_statistics_changed('knowledge_base_id');
CREATE TRIGGER chunks_keyword_statistics_updated AFTER UPDATE ON chunks
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION keyword_statistics_changed('knowledge_base_id');
CREATE TRIGGER platform_chunks_keyword_statistics_inserted AFTER INSERT ON platform_chunks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION keyword_statistics_changed('corpus_id');
CREATE TRIGGER platform_chunks_keyword_statistics_deleted AFTER DELETE ON platform_chunks
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION keyword_statistics_changed('corpus_id');
CREATE TRIGGER platform_chunks_keyword_statistics_updated AFTER UPDATE ON platform_chunks
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION keyword_statistics_changed('corpus_id');
