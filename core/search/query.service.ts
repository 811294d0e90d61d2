import type { RequestContext } from '../context.js';
import type { DomainMetrics } from '../ports/metrics.js';
import type { QueryTranslationService, TranslatedQuery } from '../translation/query-translation.service.js';
import { type UsageService, approximateTokens } from '../usage/usage.service.js';
import type { QueryRequest } from './search.schema.js';
import type { SearchService } from './search.service.js';

/**
 * POST /v1/query as a business operation: validates, counts the query against the period (402
 * when suspended or past a hard cap), searches (with the translation the settings ask for), and
 * records it in the usage ledger with its cost. A query that fails is given back and not recorded.
 * An answered query's retrieval time (every search leg and translation) goes to the metrics.
 */
export class QueryService {
  constructor(
    private readonly search: SearchService,
    private readonly usage: UsageService,
    private readonly translation: QueryTranslationService,
    private readonly metrics: Pick<DomainMetrics, 'queryServed'>,
  ) {}

  async run(ctx: RequestContext, request: QueryRequest): Promise<TranslatedQuery> {
    this.search.validate(request);
    const plan = this.translation.prepare(ctx, request);
    const reservation = await this.usage.reserveQuery(ctx);
    let answer: TranslatedQuery;
    // The first search is the query as asked; any further one is a translated leg.
    let searches = 0;
    const started = performance.now();
    try {
      answer = await this.translation.run(ctx, request, plan, async (r) => {
        searches++;
        return (await this.search.query(ctx, r)).results;
      });
    } catch (err) {
      await reservation.release();
      throw err;
    }
    const seconds = (performance.now() - started) / 1000;
    await reservation.commit({
      input: approximateTokens(request.query),
      output: answer.results.reduce((n, r) => n + approximateTokens(r.content), 0),
    });
    this.metrics.queryServed(this.search.mode, searches > 1, seconds);
    return answer;
  }
}
