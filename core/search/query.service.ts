import type { RequestContext } from '../context.js';
import type { QueryTranslationService, TranslatedQuery } from '../translation/query-translation.service.js';
import { type UsageService, approximateTokens } from '../usage/usage.service.js';
import type { QueryRequest } from './search.schema.js';
import type { SearchService } from './search.service.js';

/**
 * POST /v1/query as a business operation: validates, counts the query against the period (402
 * when suspended or past a hard cap), searches (with the translation the settings ask for), and
 * records it in the usage ledger with its cost. A query that fails is given back and not recorded.
 */
export class QueryService {
  constructor(
    private readonly search: SearchService,
    private readonly usage: UsageService,
    private readonly translation: QueryTranslationService,
  ) {}

  async run(ctx: RequestContext, request: QueryRequest): Promise<TranslatedQuery> {
    this.search.validate(request);
    const plan = this.translation.prepare(ctx, request);
    const reservation = await this.usage.reserveQuery(ctx);
    let answer: TranslatedQuery;
    try {
      answer = await this.translation.run(ctx, request, plan, async (r) => (await this.search.query(ctx, r)).results);
    } catch (err) {
      await reservation.release();
      throw err;
    }
    await reservation.commit({
      input: approximateTokens(request.query),
      output: answer.results.reduce((n, r) => n + approximateTokens(r.content), 0),
    });
    return answer;
  }
}
