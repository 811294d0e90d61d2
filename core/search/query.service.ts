import pLimit, { type LimitFunction } from 'p-limit';
import type { RequestContext } from '../context.js';
import type { DomainMetrics } from '../ports/metrics.js';
import type { QueryTranslationPlan, QueryTranslationService, TranslatedQuery } from '../translation/query-translation.service.js';
import { type UsageService, approximateTokens } from '../usage/usage.service.js';
import type { QueryRequest } from './search.schema.js';
import type { SearchService } from './search.service.js';

/**
 * POST /v1/query as a business operation: validates, counts the query against the period (402
 * when suspended or past a hard cap), searches (with the translation the settings ask for), and
 * records it in the usage ledger with its cost. A query that fails is given back and not recorded.
 * An answered query's retrieval time (every search leg and translation) goes to the metrics.
 *
 * At most `concurrency` queries are answered at once; the others wait their turn, in order, before
 * they are counted. A process runs only so many in parallel (in the embedded topology, one
 * database connection on the main thread and a scan worker): more at once would only queue their
 * statements ahead of every other request's, so a health check or a small request would wait
 * behind all of them.
 */
export class QueryService {
  private readonly admit: LimitFunction;

  constructor(
    private readonly search: SearchService,
    private readonly usage: UsageService,
    private readonly translation: QueryTranslationService,
    private readonly metrics: Pick<DomainMetrics, 'queryServed'>,
    concurrency = Infinity,
  ) {
    this.admit = pLimit(concurrency);
  }

  /** Queries admitted and not yet answered, and those waiting for their turn. */
  get load(): { active: number; waiting: number } {
    return { active: this.admit.activeCount, waiting: this.admit.pendingCount };
  }

  run(ctx: RequestContext, request: QueryRequest): Promise<TranslatedQuery> {
    this.search.validate(request);
    const plan = this.translation.prepare(ctx, request);
    return this.admit(() => this.answer(ctx, request, plan));
  }

  private async answer(ctx: RequestContext, request: QueryRequest, plan: QueryTranslationPlan): Promise<TranslatedQuery> {
    const reservation = await this.usage.reserveQuery(ctx);
    let answer: TranslatedQuery;
    // The first search is the query as asked; any further one is a translated leg.
    let searches = 0;
    const started = performance.now();
    try {
      answer = await this.translation.run(ctx, request, plan, async (r, dictionaries) => {
        searches++;
        return this.search.query(ctx, r, dictionaries);
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
