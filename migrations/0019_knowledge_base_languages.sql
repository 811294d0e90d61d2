-- Query translation searches a query again in each language of the knowledge bases it searches:
-- a language that at least 10 % of a knowledge base's indexed documents are in
-- (core/translation/query-translation.service.ts). Counting the knowledge base's documents by
-- language on every query made a query's cost grow with the documents stored; these counters are
-- kept with the writes instead, as storage_usage is (migration 0009), exact at every commit: a
-- document counts once it is ready and has a detected language.
--
-- Locks, as for storage_usage: a document is written (and locked) before its counter; a delete is
-- counted by a statement trigger, after the statement and its cascades (knowledge base, sub-tenant
-- and tenant deletions) have locked their documents, one knowledge base and language at a time in
-- sorted order. No foreign keys: the deletions' cascades bring the counts to 0, and rows at 0 go.

LOCK TABLE documents IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE knowledge_base_languages (
  knowledge_base_id uuid NOT NULL,
  language          text NOT NULL,
  tenant_id         uuid NOT NULL,
  documents         bigint NOT NULL,
  PRIMARY KEY (knowledge_base_id, language)
);

INSERT INTO knowledge_base_languages (knowledge_base_id, language, tenant_id, documents)
SELECT knowledge_base_id, language, tenant_id, count(*) FROM documents
WHERE status = 'ready' AND language IS NOT NULL
GROUP BY knowledge_base_id, language, tenant_id;

CREATE FUNCTION knowledge_base_languages_add(kb uuid, lang text, owner uuid, change bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF change > 0 THEN
    INSERT INTO knowledge_base_languages AS l (knowledge_base_id, language, tenant_id, documents) VALUES (kb, lang, owner, change)
    ON CONFLICT (knowledge_base_id, language) DO UPDATE SET documents = l.documents + EXCLUDED.documents;
  ELSIF change < 0 THEN
    UPDATE knowledge_base_languages SET documents = documents + change WHERE knowledge_base_id = kb AND language = lang;
    DELETE FROM knowledge_base_languages WHERE knowledge_base_id = kb AND language = lang AND documents <= 0;
  END IF;
END
$$;

-- Documents are inserted and updated one per statement: a row trigger.
CREATE FUNCTION knowledge_base_languages_document_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  counted_before boolean := TG_OP = 'UPDATE' AND OLD.status = 'ready' AND OLD.language IS NOT NULL;
  counted_now boolean := NEW.status = 'ready' AND NEW.language IS NOT NULL;
BEGIN
  IF counted_before AND counted_now AND (OLD.knowledge_base_id, OLD.language) > (NEW.knowledge_base_id, NEW.language) THEN
    -- Moved between counters: the lower key first, as a delete's statement trigger takes them.
    PERFORM knowledge_base_languages_add(NEW.knowledge_base_id, NEW.language, NEW.tenant_id, 1);
    PERFORM knowledge_base_languages_add(OLD.knowledge_base_id, OLD.language, OLD.tenant_id, -1);
    RETURN NULL;
  END IF;
  IF counted_before THEN
    PERFORM knowledge_base_languages_add(OLD.knowledge_base_id, OLD.language, OLD.tenant_id, -1);
  END IF;
  IF counted_now THEN
    PERFORM knowledge_base_languages_add(NEW.knowledge_base_id, NEW.language, NEW.tenant_id, 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER knowledge_base_languages_document_inserted AFTER INSERT ON documents
  FOR EACH ROW WHEN (NEW.status = 'ready' AND NEW.language IS NOT NULL)
  EXECUTE FUNCTION knowledge_base_languages_document_written();
CREATE TRIGGER knowledge_base_languages_document_updated AFTER UPDATE OF status, language, knowledge_base_id, tenant_id ON documents
  FOR EACH ROW
  WHEN ((OLD.status, OLD.language, OLD.knowledge_base_id, OLD.tenant_id) IS DISTINCT FROM (NEW.status, NEW.language, NEW.knowledge_base_id, NEW.tenant_id))
  EXECUTE FUNCTION knowledge_base_languages_document_written();

CREATE FUNCTION knowledge_base_languages_documents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  g record;
BEGIN
  FOR g IN
    SELECT d.knowledge_base_id, d.language, d.tenant_id, count(*) AS documents
    FROM deleted_documents d
    WHERE d.status = 'ready' AND d.language IS NOT NULL
    GROUP BY d.knowledge_base_id, d.language, d.tenant_id
    ORDER BY d.knowledge_base_id, d.language
  LOOP
    PERFORM knowledge_base_languages_add(g.knowledge_base_id, g.language, g.tenant_id, -g.documents);
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER knowledge_base_languages_documents_deleted AFTER DELETE ON documents
  REFERENCING OLD TABLE AS deleted_documents
  FOR EACH STATEMENT EXECUTE FUNCTION knowledge_base_languages_documents_deleted();
