/**
 * Throughput and latency of GET /v1/knowledge-bases (authentication + one scoped query) with 50
 * concurrent connections against an embedded server. Prints the median of several rounds, since
 * shared machines are noisy. Usage: npm run bench -- knowledge-bases-list [--rounds 3] [--seconds 10]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { LoreClient } from '../client/lore-client.js';
import { json, median, startBenchServer } from './support.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '10' } },
  allowPositionals: true,
});
const rounds = Number(values.rounds);
const duration = Number(values.seconds);

// Each connection plays a different client (its own X-Forwarded-For behind a trusted proxy), so the
// per-IP limit of 100 requests/s applies per client, as it would in production.
const server = await startBenchServer({ TRUSTED_PROXIES: 'loopback' });
try {
  const tenant = await json<{ api_key: string }>(`${server.url}/internal/v1/tenants`, {
    method: 'POST',
    token: server.adminToken,
    body: JSON.stringify({ name: 'bench', plan: 'standard' }),
  });
  // The internal admin API is not part of the public document; the tenant's own calls go through the typed client.
  const lore = new LoreClient({ baseUrl: server.url, apiKey: tenant.api_key });
  for (let i = 0; i < 10; i++) LoreClient.data(await lore.api.POST('/v1/knowledge-bases', { body: { name: `kb ${i}` } }));
  let clientNumber = 0;
  const results: Array<{ rps: number; p50: number; p99: number; errors: number }> = [];
  for (let round = 0; round < rounds; round++) {
    const r = await autocannon({
      url: `${server.url}/v1/knowledge-bases`,
      connections: 50,
      duration,
      headers: { authorization: `Bearer ${tenant.api_key}` },
      setupClient: (c) => {
        c.setHeaders({ authorization: `Bearer ${tenant.api_key}`, 'x-forwarded-for': `198.51.100.${(clientNumber++ % 250) + 1}` });
      },
    });
    results.push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx });
    console.log(`round ${round + 1}: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${r.errors + r.non2xx}`);
  }
  console.log(
    `GET /v1/knowledge-bases, 50 connections, embedded (PGlite), median of ${rounds} × ${duration}s: ` +
      `${median(results.map((r) => r.rps)).toFixed(0)} req/s, p50 ${median(results.map((r) => r.p50))} ms, ` +
      `p99 ${median(results.map((r) => r.p99))} ms, errors ${results.reduce((a, r) => a + r.errors, 0)}`,
  );
} finally {
  await server.stop();
}
