import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';
import type { Language, TranslationConfig } from './translation.schema.js';

/** Cached translations are used (and kept) for this long. */
export const CACHE_TTL_DAYS = 30;

/** Cached translations of a scope by key hash, younger than the cache's time to live. */
export async function cachedTranslations(db: Queryable, scope: Scope, hashes: string[]): Promise<Map<string, string>> {
  if (!hashes.length) return new Map();
  const { rows } = await db.query<{ key_hash: string; translated_text: string }>(
    `SELECT key_hash, translated_text FROM translation_cache
     WHERE tenant_id = $1 AND sub_tenant_id IS NOT DISTINCT FROM $2::uuid AND key_hash = ANY($3::text[])
       AND created_at > now() - make_interval(days => $4)`,
    [scope.tenantId, scope.subTenantId, hashes, CACHE_TTL_DAYS],
  );
  return new Map(rows.map((r) => [r.key_hash, r.translated_text]));
}

/** Stores translations (a newer one replaces an old one) and drops the tenant's expired entries. */
export async function storeTranslations(db: Queryable, scope: Scope, entries: Array<{ hash: string; text: string }>): Promise<void> {
  if (!entries.length) return;
  await db.query(
    `INSERT INTO translation_cache (tenant_id, sub_tenant_id, key_hash, translated_text)
     SELECT $1, $2::uuid, h, t FROM unnest($3::text[], $4::text[]) AS e(h, t)
     ON CONFLICT ON CONSTRAINT translation_cache_key DO UPDATE SET translated_text = EXCLUDED.translated_text, created_at = now()`,
    [scope.tenantId, scope.subTenantId, entries.map((e) => e.hash), entries.map((e) => e.text)],
  );
  await db.query('DELETE FROM translation_cache WHERE tenant_id = $1 AND created_at < now() - make_interval(days => $2)', [
    scope.tenantId,
    CACHE_TTL_DAYS,
  ]);
}

/**
 * The languages of each knowledge base's indexed documents (as detected at ingestion) that hold at
 * least `minShare` of them (0..1), so a few stray documents do not make a language of the knowledge
 * base, each with its share. Read from the counters kept with the documents' writes (migration
 * 0019): no statement counts documents.
 */
export async function documentLanguageShares(
  db: Queryable,
  scope: Scope,
  knowledgeBaseIds: string[],
  minShare: number,
): Promise<Map<string, Map<Language, number>>> {
  const out = new Map<string, Map<Language, number>>();
  if (!knowledgeBaseIds.length) return out;
  const { rows } = await db.query<{ knowledge_base_id: string; language: Language; share: number }>(
    `SELECT knowledge_base_id, language, documents::float8 / total AS share FROM (
       SELECT knowledge_base_id, language, documents, sum(documents) OVER (PARTITION BY knowledge_base_id) AS total
       FROM knowledge_base_languages
       WHERE tenant_id = $1 AND knowledge_base_id = ANY($2::uuid[])
     ) shares
     WHERE documents >= $3 * total
     ORDER BY 1, 2`,
    [scope.tenantId, knowledgeBaseIds, minShare],
  );
  for (const row of rows) out.set(row.knowledge_base_id, (out.get(row.knowledge_base_id) ?? new Map<Language, number>()).set(row.language, Number(row.share)));
  return out;
}

/** The translation settings of some of the tenant's sub-tenants, by id (none asked: no statement). */
export async function subTenantTranslationConfigs(db: Queryable, scope: Scope, subTenantIds: string[]): Promise<Map<string, TranslationConfig>> {
  if (!subTenantIds.length) return new Map();
  const { rows } = await db.query<{ id: string; translation_config: TranslationConfig }>(
    `SELECT id, translation_config FROM sub_tenants WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
    [scope.tenantId, subTenantIds],
  );
  return new Map(rows.map((r) => [r.id, r.translation_config]));
}
