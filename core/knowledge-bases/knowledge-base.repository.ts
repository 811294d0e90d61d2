import type { Queryable } from '../db/database.js';
import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';
import type { TranslationConfig } from '../translation/translation.schema.js';

export interface KnowledgeBaseRow {
  id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  name: string;
  dimensions: number;
  translation_config: TranslationConfig;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, tenant_id, sub_tenant_id, name, dimensions, translation_config, created_at, updated_at';

export async function countKnowledgeBases(db: Queryable, scope: Scope): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM knowledge_bases kb WHERE ${scopeSql('kb', 1)}`,
    scopeParams(scope),
  );
  return rows[0]?.n ?? 0;
}

export async function insertKnowledgeBase(
  db: Queryable,
  scope: Scope,
  kb: { name: string; dimensions: number; translationConfig: TranslationConfig },
): Promise<KnowledgeBaseRow> {
  const { rows } = await db.query<KnowledgeBaseRow>(
    `INSERT INTO knowledge_bases (tenant_id, sub_tenant_id, name, dimensions, translation_config)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [...scopeParams(scope), kb.name, kb.dimensions, JSON.stringify(kb.translationConfig)],
  );
  return rows[0]!;
}

export async function listKnowledgeBases(db: Queryable, scope: Scope): Promise<KnowledgeBaseRow[]> {
  const { rows } = await db.query<KnowledgeBaseRow>(
    `SELECT ${COLUMNS} FROM knowledge_bases kb WHERE ${scopeSql('kb', 1)} ORDER BY created_at, id`,
    scopeParams(scope),
  );
  return rows;
}

export async function findKnowledgeBase(db: Queryable, scope: Scope, id: string): Promise<KnowledgeBaseRow | undefined> {
  const { rows } = await db.query<KnowledgeBaseRow>(
    `SELECT ${COLUMNS} FROM knowledge_bases kb WHERE ${scopeSql('kb', 1)} AND kb.id = $3`,
    [...scopeParams(scope), id],
  );
  return rows[0];
}

export async function updateKnowledgeBase(
  db: Queryable,
  scope: Scope,
  id: string,
  patch: { name?: string | undefined; translationConfig?: TranslationConfig | undefined },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE knowledge_bases kb
     SET name = COALESCE($4, kb.name),
         translation_config = COALESCE($5::jsonb, kb.translation_config),
         updated_at = now()
     WHERE ${scopeSql('kb', 1)} AND kb.id = $3`,
    [
      ...scopeParams(scope),
      id,
      patch.name ?? null,
      patch.translationConfig ? JSON.stringify(patch.translationConfig) : null,
    ],
  );
  return rowCount > 0;
}
