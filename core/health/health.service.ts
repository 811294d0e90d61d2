import type { Database } from '../db/database.js';
import type { VectorIndex } from '../ports/vector-index.js';
import { chunkCountsOfOtherEmbedders, pingDatabase } from './health.repository.js';

/** GET /health/index's body: the spec names the tenant and corpus indexes after pgvector's tables. */
export type IndexStatus = Record<'idx_chunks_embedding' | 'idx_platform_chunks_embedding', 'ok' | 'missing'>;

const READY_TIMEOUT_MS = 2000;

export class HealthService {
  constructor(
    private readonly db: Database,
    private readonly vectors: VectorIndex,
  ) {}

  /** True when the database answers within the time limit. */
  async ready(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    });
    try {
      return await Promise.race([pingDatabase(this.db).then(() => true), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Indexed chunks whose vectors another embedder made: they need re-indexing after a model change. */
  chunksFromOtherEmbedders(embedderId: string): Promise<Array<{ embedder: string; chunks: number }>> {
    return chunkCountsOfOtherEmbedders(this.db, embedderId);
  }

  /** Whether the vector index of tenant chunks and that of corpus chunks can serve searches. */
  async vectorIndexes(): Promise<IndexStatus> {
    const status = await this.vectors.status();
    return { idx_chunks_embedding: status.tenant, idx_platform_chunks_embedding: status.corpus };
  }
}
