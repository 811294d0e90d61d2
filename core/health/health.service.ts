import type { Database } from '../db/database.js';

export const VECTOR_INDEXES = ['idx_chunks_embedding', 'idx_platform_chunks_embedding'] as const;
export type IndexStatus = Record<(typeof VECTOR_INDEXES)[number], 'ok' | 'missing'>;

const READY_TIMEOUT_MS = 2000;

export class HealthService {
  constructor(private readonly db: Database) {}

  /** True when the database answers within the time limit. */
  async ready(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.db.query('SELECT 1').then(() => true), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Indexed chunks whose vectors another embedder made: they need re-indexing after a model change. */
  async chunksFromOtherEmbedders(embedderId: string): Promise<Array<{ embedder: string; chunks: number }>> {
    const { rows } = await this.db.query<{ embedder: string; chunks: number }>(
      'SELECT embedder, count(*)::int AS chunks FROM chunks WHERE embedder <> $1 GROUP BY embedder ORDER BY embedder',
      [embedderId],
    );
    return rows;
  }

  async vectorIndexes(): Promise<IndexStatus> {
    const { rows } = await this.db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1::text[])`,
      [[...VECTOR_INDEXES]],
    );
    const present = new Set(rows.map((r) => r.indexname));
    return {
      idx_chunks_embedding: present.has('idx_chunks_embedding') ? 'ok' : 'missing',
      idx_platform_chunks_embedding: present.has('idx_platform_chunks_embedding') ? 'ok' : 'missing',
    };
  }
}
