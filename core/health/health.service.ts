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
