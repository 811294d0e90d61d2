-- The database's id, made once here (a backup or a copy of the database keeps it). The flat vector
-- index's snapshots name it, and a start refuses one that names another database: a snapshot left
-- in a DATA_DIR by another database (a benchmark's, say) is never loaded into this one.
CREATE TABLE database_identity (
  -- One row: the key admits only true.
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  id         uuid NOT NULL DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO database_identity DEFAULT VALUES;
