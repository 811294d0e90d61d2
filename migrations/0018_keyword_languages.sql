-- Keyword search normalises a query's words with every language's configuration, since a query's
-- language is not known; a chunk is indexed with its own language's. A word that is a stop word of
-- the collection's language ("le" in French) then keeps the lexemes other configurations make of
-- it, which only the collection's few chunks of other languages hold: so rare, they weighed as the
-- most telling words of the query. BM25 now counts a lexeme's inverse document frequency among the
-- chunks whose configuration makes that lexeme of the query's word (core/search/bm25.ts), which
-- needs the number of chunks per language of each collection: kept here, exact at every commit by
-- the same statement triggers as the other keyword statistics (migration 0017).
--
-- Locks: a statement changes a collection's totals row, then its language rows, then its lexemes,
-- each in sorted order, as before.

CREATE TABLE keyword_languages (
  collection_id uuid NOT NULL,
  -- The chunks' language; '' for chunks of no detected language.
  language      text NOT NULL,
  chunks        bigint NOT NULL,
  PRIMARY KEY (collection_id, language)
);

LOCK TABLE chunks, platform_chunks IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO keyword_languages (collection_id, language, chunks)
SELECT knowledge_base_id, coalesce(language, ''), count(*) FROM chunks GROUP BY 1, 2
UNION ALL
SELECT corpus_id, coalesce(language, ''), count(*) FROM platform_chunks GROUP BY 1, 2;

DROP FUNCTION keyword_statistics_apply(uuid[], bigint[], bigint[], uuid[], text[], bigint[]);

-- Adds signed changes, collection rows first, then language rows, then lexemes, each list sorted
-- (the lock order); then drops rows at 0.
CREATE FUNCTION keyword_statistics_apply(
  collection_ids uuid[], chunk_changes bigint[], lexeme_changes bigint[],
  language_collection_ids uuid[], language_names text[], language_changes bigint[],
  term_collection_ids uuid[], term_lexemes text[], term_changes bigint[]
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO keyword_collections AS k (collection_id, chunks, lexemes)
  SELECT * FROM unnest(collection_ids, chunk_changes, lexeme_changes) ORDER BY 1
  ON CONFLICT (collection_id) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks, lexemes = k.lexemes + EXCLUDED.lexemes;
  IF language_collection_ids IS NOT NULL THEN
    INSERT INTO keyword_languages AS k (collection_id, language, chunks)
    SELECT * FROM unnest(language_collection_ids, language_names, language_changes) ORDER BY 1, 2
    ON CONFLICT (collection_id, language) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks;
    DELETE FROM keyword_languages k USING unnest(language_collection_ids, language_names) AS t(collection_id, language)
    WHERE k.collection_id = t.collection_id AND k.language = t.language AND k.chunks <= 0;
  END IF;
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

-- The statement trigger of migration 0017 (same name and arguments, so its triggers stay), now
-- counting chunks per language too.
CREATE OR REPLACE FUNCTION keyword_statistics_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rows_changed text;
  collection_ids uuid[];
  chunk_changes bigint[];
  lexeme_changes bigint[];
  language_collection_ids uuid[];
  language_names text[];
  language_changes bigint[];
  term_collection_ids uuid[];
  term_lexemes text[];
  term_changes bigint[];
BEGIN
  rows_changed := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %I AS id, coalesce(language, %L) AS language, tsv, 1 AS sign FROM added', TG_ARGV[0], '')
    WHEN 'DELETE' THEN format('SELECT %I AS id, coalesce(language, %L) AS language, tsv, -1 AS sign FROM removed', TG_ARGV[0], '')
    ELSE format('SELECT %1$I AS id, coalesce(language, %2$L) AS language, tsv, 1 AS sign FROM added
                 UNION ALL SELECT %1$I, coalesce(language, %2$L), tsv, -1 FROM removed', TG_ARGV[0], '')
  END;
  EXECUTE format(
    'SELECT array_agg(id ORDER BY id), array_agg(n ORDER BY id), array_agg(l ORDER BY id)
     FROM (SELECT id, sum(sign) AS n, sum(sign * length(tsv)) AS l FROM (%s) s GROUP BY id) t
     WHERE n <> 0 OR l <> 0', rows_changed)
  INTO collection_ids, chunk_changes, lexeme_changes;
  EXECUTE format(
    'SELECT array_agg(id ORDER BY id, language), array_agg(language ORDER BY id, language), array_agg(n ORDER BY id, language)
     FROM (SELECT id, language, sum(sign) AS n FROM (%s) s GROUP BY 1, 2 HAVING sum(sign) <> 0) t', rows_changed)
  INTO language_collection_ids, language_names, language_changes;
  EXECUTE format(
    'SELECT array_agg(id ORDER BY id, lexeme), array_agg(lexeme ORDER BY id, lexeme), array_agg(n ORDER BY id, lexeme)
     FROM (SELECT s.id, u.lexeme, sum(s.sign) AS n FROM (%s) s, unnest(s.tsv) u GROUP BY 1, 2 HAVING sum(s.sign) <> 0) t', rows_changed)
  INTO term_collection_ids, term_lexemes, term_changes;
  IF collection_ids IS NULL AND language_collection_ids IS NULL AND term_collection_ids IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM keyword_statistics_apply(collection_ids, chunk_changes, lexeme_changes, language_collection_ids, language_names,
                                   language_changes, term_collection_ids, term_lexemes, term_changes);
  RETURN NULL;
END
$$;
