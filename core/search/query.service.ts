import type { RequestContext } from '../context.js';
import { errors } from '../errors.js';
import { type UsageService, approximateTokens } from '../usage/usage.service.js';
import type { QueryRequest, QueryResultItem } from './search.schema.js';
import type { SearchService } from './search.service.js';

/**
 * POST /v1/query as a business operation: validates, counts the query against the period (402
 * when suspended or past a hard cap), searches, and records it in the usage ledger with its cost.
 * A query that fails is given back and not recorded.
 */
export class QueryService {
  constructor(
    private readonly search: SearchService,
    private readonly usage: UsageService,
  ) {}

  async run(ctx: RequestContext, request: QueryRequest): Promise<{ results: QueryResultItem[] }> {
    this.search.validate(request);
    if (request.translate_response) {
      if (ctx.tenant.plan === 'free') {
        throw errors.forbidden('free_tier_restriction', 'Response translation is not available on the Free plan.');
      }
      // No translation engine is configured on this instance (translation is not built yet).
      throw errors.unavailable('translation_unavailable', 'Response translation is not available on this instance.');
    }
    const reservation = await this.usage.reserveQuery(ctx);
    let results: QueryResultItem[];
    try {
      ({ results } = await this.search.query(ctx, request));
    } catch (err) {
      await reservation.release();
      throw err;
    }
    await reservation.commit({
      input: approximateTokens(request.query),
      output: results.reduce((n, r) => n + approximateTokens(r.content), 0),
    });
    return { results };
  }
}
