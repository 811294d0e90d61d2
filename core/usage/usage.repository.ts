import type { Queryable, SqlParam } from '../db/database.js';
import type { Scope } from '../shared/scope.js';

/** The row of query_counters that counts the tenant as a whole. */
export const WHOLE_TENANT = '00000000-0000-0000-0000-000000000000';

/**
 * Counts one query in a period; with `cap`, only while the count is below it. Returns the new
 * count (the query's ordinal in the period), or undefined when the cap was already reached. One
 * atomic upsert: concurrent queries get distinct ordinals and can never pass the cap together.
 */
export async function countQuery(db: Queryable, scope: Scope, params: { periodStart: Date; cap: number | null }): Promise<number | undefined> {
  const { rows } = await db.query<{ queries: number }>(
    `INSERT INTO query_counters AS c (tenant_id, sub_tenant_id, period_start, queries)
     SELECT $1, $2, $3, 1 WHERE $4::bigint IS NULL OR $4::bigint > 0
     ON CONFLICT (tenant_id, sub_tenant_id, period_start)
     DO UPDATE SET queries = c.queries + 1 WHERE $4::bigint IS NULL OR c.queries < $4::bigint
     RETURNING queries`,
    [scope.tenantId, scope.subTenantId ?? WHOLE_TENANT, params.periodStart, params.cap],
  );
  return rows[0] ? Number(rows[0].queries) : undefined;
}

/** Gives back a counted query whose search then failed. */
export async function uncountQuery(db: Queryable, scope: Scope, periodStart: Date): Promise<void> {
  await db.query(
    `UPDATE query_counters SET queries = GREATEST(queries - 1, 0)
     WHERE tenant_id = $1 AND sub_tenant_id = $2 AND period_start = $3`,
    [scope.tenantId, scope.subTenantId ?? WHOLE_TENANT, periodStart],
  );
}

/** Queries counted in a period: the whole tenant's, or with a sub-tenant in the scope, that sub-tenant's. */
export async function queriesInPeriod(db: Queryable, scope: Scope, periodStart: Date): Promise<number> {
  const { rows } = await db.query<{ queries: number }>(
    'SELECT queries FROM query_counters WHERE tenant_id = $1 AND sub_tenant_id = $2 AND period_start = $3',
    [scope.tenantId, scope.subTenantId ?? WHOLE_TENANT, periodStart],
  );
  return rows[0] ? Number(rows[0].queries) : 0;
}

/**
 * `translation`: a call of the translation endpoints (a billable request); `query_translation`: the
 * translations inside a query (its characters and tokens, while the query stays one request).
 */
export type UsageEventType =
  | 'query'
  | 'ingestion'
  | 'translation'
  | 'query_translation'
  | 'transcription'
  | 'report_generation'
  | 'subscription';

export interface UsageEvent {
  tenantId: string;
  subTenantId?: string | null;
  userId?: string | null;
  type: UsageEventType;
  quantity: number;
  costMicrocents: number;
  inputTokens?: number;
  outputTokens?: number;
  /** Characters translated (translations) and produced. */
  inputChars?: number;
  outputChars?: number;
  /** Audio transcribed (transcription jobs). */
  audioSeconds?: number;
  occurredAt?: Date;
}

/** Appends to the usage ledger (never updated or deleted, except with the whole account). */
export async function insertUsageEvent(db: Queryable, e: UsageEvent): Promise<void> {
  await insertUsageEvents(db, [e]);
}

/** Appends several events to the usage ledger in one statement. */
export async function insertUsageEvents(db: Queryable, events: readonly UsageEvent[]): Promise<void> {
  if (!events.length) return;
  const params: SqlParam[] = [];
  const rows = events.map((e) => {
    const at = params.length;
    params.push(
      e.tenantId,
      e.subTenantId ?? null,
      e.userId ?? null,
      e.type,
      e.quantity,
      e.costMicrocents,
      e.inputTokens ?? 0,
      e.outputTokens ?? 0,
      e.occurredAt ?? null,
      e.inputChars ?? 0,
      e.outputChars ?? 0,
      e.audioSeconds ?? 0,
    );
    const p = (n: number) => `$${at + n}`;
    return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, COALESCE(${p(9)}::timestamptz, now()), ${p(10)}, ${p(11)}, ${p(12)})`;
  });
  await db.query(
    `INSERT INTO usage_events (tenant_id, sub_tenant_id, user_id, event_type, quantity, cost_microcents, input_tokens,
                               output_tokens, occurred_at, input_chars, output_chars, audio_seconds)
     VALUES ${rows.join(', ')}`,
    params,
  );
}

export interface LedgerTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicrocents: number;
  ingestionChunks: number;
}

/** Ledger totals of a tenant since `from`. Requests are billable calls: queries, translations, add-on jobs. */
export async function ledgerTotals(db: Queryable, scope: Scope, from: Date): Promise<LedgerTotals> {
  const { rows } = await db.query<{ requests: number; input: number; output: number; cost: number; chunks: number }>(
    `SELECT COALESCE(sum(quantity) FILTER (WHERE event_type IN ('query', 'translation', 'transcription', 'report_generation')), 0)::bigint AS requests,
            COALESCE(sum(input_tokens), 0)::bigint AS input,
            COALESCE(sum(output_tokens), 0)::bigint AS output,
            COALESCE(sum(cost_microcents), 0)::bigint AS cost,
            COALESCE(sum(quantity) FILTER (WHERE event_type = 'ingestion'), 0)::bigint AS chunks
     FROM usage_events WHERE tenant_id = $1 AND occurred_at >= $2`,
    [scope.tenantId, from],
  );
  const r = rows[0]!;
  return {
    requests: Number(r.requests),
    inputTokens: Number(r.input),
    outputTokens: Number(r.output),
    costMicrocents: Number(r.cost),
    ingestionChunks: Number(r.chunks),
  };
}

/** Monthly ledger history of a tenant (for the account export). */
export async function monthlyHistory(
  db: Queryable,
  scope: Scope,
): Promise<Array<{ month: string; event_type: string; quantity: number; cost_microcents: number }>> {
  const { rows } = await db.query<{ month: string; event_type: string; quantity: number; cost_microcents: number }>(
    `SELECT to_char(date_trunc('month', occurred_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month, event_type,
            sum(quantity)::bigint AS quantity, sum(cost_microcents)::bigint AS cost_microcents
     FROM usage_events WHERE tenant_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [scope.tenantId],
  );
  return rows.map((r) => ({ ...r, quantity: Number(r.quantity), cost_microcents: Number(r.cost_microcents) }));
}
