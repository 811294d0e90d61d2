import assert from 'node:assert/strict';
import { addMonths } from '../../core/billing/billing-period.js';
import { tenantScope } from '../../core/shared/scope.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createKey, createTenant, startTestApp, waitForJob } from '../support/app.js';
import { TestClock } from '../support/clock.js';
import { testDatabases } from '../support/databases.js';

const DETAILS = {
  company_name: 'Acme BV',
  email: 'billing@acme.example',
  address: 'Keizersgracht 1, Amsterdam',
  country: 'NL',
  vat_id: 'NL123456789B01',
  payment_method: 'sepa_debit',
};
const DAY = 86_400_000;

for (const database of testDatabases()) {
  describe(`billing [${database.name}]`, () => {
    let app: TestApp;
    const clock = new TestClock(new Date('2027-01-10T12:00:00Z'));
    before(async () => {
      app = await startTestApp(await database.get(), { adapters: { clock } });
    });
    after(() => app.close());
    afterEach(() => clock.set(new Date('2027-01-10T12:00:00Z')));

    async function tenant(plan: 'free' | 'payg' | 'standard' | 'enterprise', details = false) {
      const t = await createTenant(app, plan);
      const api = client(app.url, t.key);
      if (details) assert.equal((await api('PUT', '/v1/billing/details', DETAILS)).status, 200);
      return { ...t, api };
    }

    async function state(id: string) {
      const { rows } = await app.db.query<{ plan: string; billing_interval: string; period_start: Date; period_end: Date; period_included_queries: number }>(
        'SELECT plan, billing_interval, period_start, period_end, period_included_queries FROM tenants WHERE id = $1',
        [id],
      );
      return { ...rows[0]!, period_included_queries: Number(rows[0]!.period_included_queries) };
    }

    it('starts a monthly period with the plan allowance and serves an empty event list', async () => {
      const t = await tenant('standard');
      const s = await state(t.id);
      assert.equal(s.period_start.toISOString(), '2027-01-10T12:00:00.000Z');
      assert.equal(s.period_end.toISOString(), '2027-02-10T12:00:00.000Z');
      assert.equal(s.period_included_queries, 50_000);
      assert.deepEqual((await t.api('GET', '/v1/billing/events')).body, []);
      const status = (await t.api('GET', '/v1/billing')).body;
      assert.equal(status.plan, 'standard');
      assert.equal(status.current_period_end, '2027-02-10T12:00:00.000Z');
    });

    it('bills PAYG queries and chunks at the plan rates in integer microcents', async () => {
      const t = await tenant('payg');
      const kb = (await t.api('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      const doc = await t.api('POST', '/v1/documents', { knowledge_base_id: kb, title: 't', content: 'Short billable text.' });
      const job = await waitForJob(app, t.key, doc.body.job_id);
      for (let i = 0; i < 3; i++) assert.equal((await t.api('POST', '/v1/query', { query: 'billable text' })).status, 200);
      const usage = (await t.api('GET', '/v1/billing/usage')).body;
      assert.deepEqual(Object.keys(usage).sort(), [
        'included_queries', 'ingestion_chunks', 'overage_cost_microcents', 'overage_queries', 'plan_type', 'query_count',
        'total_cost_microcents', 'total_input_tokens', 'total_output_tokens', 'total_requests',
      ]);
      assert.equal(usage.plan_type, 'payg');
      assert.equal(usage.included_queries, 0);
      assert.equal(usage.query_count, 3);
      assert.equal(usage.overage_queries, 3);
      assert.equal(usage.overage_cost_microcents, 3 * 400_000);
      assert.equal(usage.ingestion_chunks, job.total_chunks);
      assert.equal(usage.total_cost_microcents, 3 * 400_000 + job.total_chunks * 100_000);
      assert.equal(usage.total_requests, 3);
      assert.ok(usage.total_input_tokens >= 3 * Math.ceil('billable text'.length / 4));
      assert.ok(usage.total_output_tokens > 0);
    });

    it('caps Free at its included queries: the last one succeeds, the next is 402 quota_exhausted', async () => {
      const t = await tenant('free');
      const s = await state(t.id);
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { limit_overrides: { query_rate_limit_per_min: 1000 } });
      await app.db.query(
        `INSERT INTO query_counters (tenant_id, period_start, queries) VALUES ($1, $2, 998)`,
        [t.id, s.period_start],
      );
      assert.equal((await t.api('POST', '/v1/query', { query: 'one' })).status, 200);
      assert.equal((await t.api('POST', '/v1/query', { query: 'two' })).status, 200);
      const over = await t.api('POST', '/v1/query', { query: 'three' });
      assert.equal(over.status, 402);
      assert.equal(over.body.error, 'quota_exhausted');
      assert.equal((await t.api('GET', '/v1/usage')).body.queries_this_period.used, 1000);
      const billing = (await t.api('GET', '/v1/billing/usage')).body;
      assert.equal(billing.overage_queries, 0);
      assert.equal(billing.total_cost_microcents, 0);
      // A new period brings a new allowance.
      clock.advance(32 * DAY);
      assert.equal((await t.api('POST', '/v1/query', { query: 'four' })).status, 200);
    });

    it('charges Standard overage beyond the included queries', async () => {
      const t = await tenant('payg', true);
      for (let i = 0; i < 2; i++) await t.api('POST', '/v1/query', { query: 'before' });
      // At the very end of the period the prorated allowance is nothing: included = queries so far.
      const s = await state(t.id);
      clock.set(new Date(s.period_end.getTime() - 1));
      const up = await t.api('POST', '/v1/billing/upgrade', { plan: 'standard' });
      assert.deepEqual(up.body, { status: 'upgraded', plan: 'standard', prorated_queries: 0 });
      for (let i = 0; i < 3; i++) await t.api('POST', '/v1/query', { query: 'after' });
      const usage = (await t.api('GET', '/v1/billing/usage')).body;
      assert.equal(usage.included_queries, 2);
      assert.equal(usage.query_count, 5);
      assert.equal(usage.overage_queries, 3);
      assert.equal(usage.overage_cost_microcents, 3 * 200_000);
    });

    it('answers 402 payment_required to queries of a suspended tenant', async () => {
      const t = await tenant('standard');
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { status: 'suspended' });
      const res = await t.api('POST', '/v1/query', { query: 'x' });
      assert.equal(res.status, 402);
      assert.equal(res.body.error, 'payment_required');
    });

    it('upgrades at once with prorated included queries, and validates the request', async () => {
      const t = await tenant('free');
      assert.equal((await t.api('POST', '/v1/billing/upgrade', { plan: 'gold' })).body.error, 'invalid_plan');
      assert.equal((await t.api('POST', '/v1/billing/upgrade', { plan: 'gold' })).status, 422);
      assert.equal((await t.api('POST', '/v1/billing/upgrade', { plan: 'free' })).body.error, 'already_on_plan');
      const noDetails = await t.api('POST', '/v1/billing/upgrade', { plan: 'standard' });
      assert.equal(noDetails.status, 409);
      assert.equal(noDetails.body.error, 'billing_details_required');
      assert.equal((await t.api('PUT', '/v1/billing/details', { ...DETAILS, country: 'Netherlands' })).status, 422);
      assert.equal((await t.api('PUT', '/v1/billing/details', DETAILS)).status, 200);
      await t.api('POST', '/v1/query', { query: 'one query on free' });
      // Halfway through January's 31 days... exactly: 10 Jan 12:00 + 15.5 days.
      const s = await state(t.id);
      const total = s.period_end.getTime() - s.period_start.getTime();
      clock.set(new Date(s.period_start.getTime() + total / 2));
      const up = await t.api('POST', '/v1/billing/upgrade', { plan: 'standard' });
      assert.equal(up.status, 200);
      assert.deepEqual(up.body, { status: 'upgraded', plan: 'standard', prorated_queries: 25_000 });
      assert.equal((await state(t.id)).plan, 'standard');
      assert.equal((await t.api('GET', '/v1/usage')).body.queries_this_period.limit, 25_001);
      const down = await t.api('POST', '/v1/billing/upgrade', { plan: 'payg' });
      assert.equal(down.status, 409);
      assert.equal(down.body.error, 'use_downgrade_endpoint');
    });

    it('schedules a downgrade and applies it exactly once at the end of the period', async () => {
      const t = await tenant('enterprise');
      const before = await state(t.id);
      assert.equal((await t.api('POST', '/v1/billing/downgrade', { plan: 'enterprise' })).body.error, 'already_on_plan');
      assert.equal((await t.api('POST', '/v1/billing/downgrade', { plan: 'platinum' })).body.error, 'invalid_plan');
      const res = await t.api('POST', '/v1/billing/downgrade', { plan: 'standard' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'scheduled', plan: 'standard', effective_at: before.period_end.toISOString() });
      assert.equal((await state(t.id)).plan, 'enterprise', 'nothing changes before the period ends');

      clock.set(new Date(before.period_end.getTime() + 1000));
      // Every trigger at once: the scheduled job, a catch-up run, and requests that notice the period ended.
      await app.db.query(`UPDATE jobs SET run_at = now() WHERE tenant_id = $1 AND job_type = 'billing_period'`, [t.id]);
      await Promise.all([
        app.runtime.engine.drain(),
        app.services.billingPeriods.runDueTransitions(),
        app.services.billingPeriods.rollover(tenantScope(t.id)),
        t.api('GET', '/v1/usage'),
        t.api('POST', '/v1/query', { query: 'x' }),
      ]);
      await app.services.billingPeriods.runDueTransitions();
      const after = await state(t.id);
      assert.equal(after.plan, 'standard');
      assert.equal(after.period_start.toISOString(), before.period_end.toISOString());
      assert.equal(after.period_end.toISOString(), addMonths(before.period_end, 1).toISOString());
      assert.equal(after.period_included_queries, 50_000);
      const fees = await app.db.query<{ n: number; cost: number }>(
        `SELECT count(*)::int AS n, sum(cost_microcents)::bigint AS cost FROM usage_events
         WHERE tenant_id = $1 AND event_type = 'subscription' AND occurred_at = $2`,
        [t.id, before.period_end],
      );
      assert.deepEqual({ n: fees.rows[0]!.n, cost: Number(fees.rows[0]!.cost) }, { n: 1, cost: 49 * 100_000_000 });
      const jobs = await app.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM jobs WHERE tenant_id = $1 AND job_type = 'billing_period' AND status = 'queued'`,
        [t.id],
      );
      assert.equal(jobs.rows[0]!.n, 1, 'exactly one transition is scheduled for the new period');
      // The counter started again: only the query made during the race, which ran in the new period.
      assert.equal((await t.api('GET', '/v1/usage')).body.queries_this_period.used, 1);
    });

    it('counts a query in the period it is made in: the first query after a period ends moves the tenant into the next', async () => {
      const t = await tenant('free');
      const before = await state(t.id);
      assert.equal((await t.api('POST', '/v1/query', { query: 'x' })).status, 200);
      clock.set(new Date(before.period_end.getTime() + 1000));
      // Nothing else has noticed the end: the key's lookup reads the ended period, the query moves past it.
      assert.equal((await t.api('POST', '/v1/query', { query: 'x' })).status, 200);
      const after = await state(t.id);
      assert.equal(after.period_start.toISOString(), before.period_end.toISOString());
      const { rows } = await app.db.query<{ period_start: Date; queries: number }>(
        'SELECT period_start, queries::int AS queries FROM query_counters WHERE tenant_id = $1 ORDER BY period_start',
        [t.id],
      );
      assert.deepEqual(
        rows.map((r) => [r.period_start.toISOString(), r.queries]),
        [
          [before.period_start.toISOString(), 1],
          [before.period_end.toISOString(), 1],
        ],
      );
    });

    it('refuses a downgrade or cancellation while usage exceeds the target plan (422 exceeds_target_plan_limits)', async () => {
      const t = await tenant('standard');
      for (let i = 0; i < 6; i++) await t.api('POST', '/v1/knowledge-bases', { name: `kb${i}` });
      const res = await t.api('POST', '/v1/billing/downgrade', { plan: 'payg' });
      assert.equal(res.status, 422);
      assert.equal(res.body.error, 'exceeds_target_plan_limits');
      assert.deepEqual(res.body.exceeded, [{ resource: 'knowledge_bases', used: 6, limit: 5 }]);
      const cancel = await t.api('POST', '/v1/billing/cancel');
      assert.equal(cancel.status, 422);
      assert.equal(cancel.body.error, 'exceeds_target_plan_limits');
      const up = await t.api('POST', '/v1/billing/downgrade', { plan: 'enterprise' });
      assert.equal(up.status, 409);
      assert.equal(up.body.error, 'use_upgrade_endpoint');
    });

    it('schedules, refuses twice, retracts and applies cancellations', async () => {
      const free = await tenant('free');
      assert.equal((await free.api('POST', '/v1/billing/cancel')).body.error, 'already_on_free');
      const t = await tenant('standard', true);
      const before = await state(t.id);
      const res = await t.api('POST', '/v1/billing/cancel');
      assert.deepEqual(res.body, { status: 'cancellation_scheduled', effective_at: before.period_end.toISOString() });
      assert.equal((await t.api('POST', '/v1/billing/cancel')).body.error, 'cancellation_pending');
      assert.equal((await t.api('POST', '/v1/billing/upgrade', { plan: 'enterprise' })).body.error, 'cancellation_pending');
      assert.equal((await t.api('POST', '/v1/billing/downgrade', { plan: 'payg' })).body.error, 'cancellation_pending');
      assert.deepEqual((await t.api('DELETE', '/v1/billing/cancel')).body, { status: 'cancellation_retracted' });
      const none = await t.api('DELETE', '/v1/billing/cancel');
      assert.equal(none.status, 404);
      assert.equal(none.body.error, 'no_pending_cancellation');
      // Retracted: the period end leaves the plan as it is.
      clock.set(new Date(before.period_end.getTime() + 1));
      await app.services.billingPeriods.runDueTransitions();
      assert.equal((await state(t.id)).plan, 'standard');
      // Cancelled: the next period end moves it to Free.
      await t.api('POST', '/v1/billing/cancel');
      clock.set(new Date((await state(t.id)).period_end.getTime() + 1));
      await app.services.billingPeriods.runDueTransitions();
      const after = await state(t.id);
      assert.equal(after.plan, 'free');
      assert.equal(after.period_included_queries, 1000);
    });

    it('switches to annual billing at the period end, and renews annual plans', async () => {
      const free = await tenant('free', true);
      assert.equal((await free.api('POST', '/v1/billing/interval', { billing_interval: 'annual' })).body.error, 'annual_not_available');
      const bare = await tenant('standard');
      assert.equal((await bare.api('POST', '/v1/billing/interval', { billing_interval: 'annual' })).body.error, 'billing_details_required');
      const t = await tenant('standard', true);
      assert.equal((await t.api('POST', '/v1/billing/interval', { billing_interval: 'weekly' })).status, 422);
      assert.equal((await t.api('POST', '/v1/billing/renew')).body.error, 'not_annual_plan');
      assert.deepEqual((await t.api('POST', '/v1/billing/interval', { billing_interval: 'monthly' })).body, {
        status: 'unchanged',
        billing_interval: 'monthly',
        effective_at: null,
      });
      const before = await state(t.id);
      const res = await t.api('POST', '/v1/billing/interval', { billing_interval: 'annual' });
      assert.deepEqual(res.body, { status: 'scheduled', billing_interval: 'annual', effective_at: before.period_end.toISOString() });
      clock.set(new Date(before.period_end.getTime() + 1));
      await app.services.billingPeriods.runDueTransitions();
      const annual = await state(t.id);
      assert.equal(annual.billing_interval, 'annual');
      assert.equal(annual.period_end.toISOString(), addMonths(before.period_end, 12).toISOString());
      assert.equal(annual.period_included_queries, 12 * 50_000);

      const renewed = await t.api('POST', '/v1/billing/renew');
      assert.equal(renewed.status, 200);
      assert.equal(renewed.body.status, 'renewed');
      assert.equal(renewed.body.renewed_until, addMonths(annual.period_end, 12).toISOString());
      clock.set(new Date(annual.period_end.getTime() + 1));
      await app.services.billingPeriods.runDueTransitions();
      const second = await state(t.id);
      assert.equal(second.billing_interval, 'annual', 'a renewed annual plan stays annual');
      // Not renewed again: at the end of the second year it returns to monthly billing.
      clock.set(new Date(second.period_end.getTime() + 1));
      await app.services.billingPeriods.runDueTransitions();
      assert.equal((await state(t.id)).billing_interval, 'monthly');
    });

    it('requires an admin key for billing', async () => {
      const t = await tenant('standard');
      const write = client(app.url, await createKey(app, t.key, 'write'));
      for (const [method, path] of [
        ['GET', '/v1/billing/usage'],
        ['GET', '/v1/billing/events'],
        ['POST', '/v1/billing/upgrade'],
        ['POST', '/v1/billing/downgrade'],
        ['POST', '/v1/billing/cancel'],
        ['DELETE', '/v1/billing/cancel'],
        ['POST', '/v1/billing/interval'],
        ['POST', '/v1/billing/renew'],
        ['PUT', '/v1/billing/details'],
      ] as const) {
        assert.equal((await write(method, path, method === 'GET' || method === 'DELETE' ? undefined : {})).status, 403, `${method} ${path}`);
      }
    });

    it('answers 503 billing_not_available for plan changes when billing is disabled', async () => {
      const off = await startTestApp(app.db, { env: { BILLING_ENABLED: 'false' }, jobs: false });
      try {
        const t = await createTenant(off, 'standard');
        const api = client(off.url, t.key);
        for (const [method, path, body] of [
          ['POST', '/v1/billing/upgrade', { plan: 'enterprise' }],
          ['POST', '/v1/billing/downgrade', { plan: 'free' }],
          ['POST', '/v1/billing/cancel', undefined],
          ['DELETE', '/v1/billing/cancel', undefined],
          ['POST', '/v1/billing/interval', { billing_interval: 'annual' }],
          ['POST', '/v1/billing/renew', undefined],
        ] as const) {
          const res = await api(method, path, body);
          assert.equal(res.status, 503, `${method} ${path}`);
          assert.equal(res.body.error, 'billing_not_available');
        }
        assert.equal((await api('GET', '/v1/billing/usage')).status, 200);
      } finally {
        await off.close();
      }
    });
  });
}
