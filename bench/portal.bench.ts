/**
 * The portal's costs: a password hash (scrypt, the work every sign-in does, known address or not),
 * a sign-in over HTTP, and the pages a signed-in person loads, on an embedded Lore.
 *
 *   npx tsx bench/portal.bench.ts [--rounds 5] [--requests 40]
 *
 * Each round signs a new person in 10 times, then loads each page `requests` times.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { hashPassword, verifyPassword } from '../core/portal/password.js';
import { TEST_ADMIN_TOKEN, client, startTestApp } from '../test/support/app.js';
import { testDatabases } from '../test/support/databases.js';
import { PortalVisitor } from '../test/support/portal.js';
import { median, percentile } from './support.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 5);
const requests = arg('requests', 40);

/** Times `fn` n times, one after another, paced under the spec's 100 requests per second per address. */
async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    ms.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  return ms;
}



const hash = await hashPassword('a benchmark passphrase');
const app = await startTestApp(await testDatabases()[0]!.get(), { jobs: false, env: { LOG_LEVEL: 'silent' } });
const email = `bench-${randomUUID()}@example.test`;
const created = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Bench', plan: 'standard', email });
const password = 'a benchmark passphrase';
/** A person of the tenant with a password (a fresh one each round: sign-ins, even right ones, are limited per address). */
async function person(): Promise<string> {
  const address = `p-${randomUUID()}@example.test`;
  const pending = await app.services.portal.addUser(app.db, { tenantId: (created.body as { id: string }).id, subTenantId: null }, { email: address, role: 'admin' }, 'Bench');
  await app.services.portal.completeLink(pending.token, password);
  return address;
}
/** Fails the bench when a request does not answer as a signed-in person's would. */
function expect(status: number, wanted: number, what: string): void {
  if (status !== wanted) throw new Error(`${what} answered ${status}, not ${wanted}`);
}

const rows: Array<[string, number[]]> = [];
const figures = new Map<string, number[][]>();
for (let round = 0; round < rounds; round++) {
  const record = (name: string, ms: number[]) => figures.set(name, [...(figures.get(name) ?? []), ms]);
  record('scrypt verify (right password)', await timed(10, () => verifyPassword(password, hash)));
  record('scrypt verify (no account: decoy)', await timed(10, () => verifyPassword(password, null)));
  const visitor = new PortalVisitor(app.url);
  const address = await person();
  record('POST /portal/sign-in (right password)', await timed(10, async () => expect((await visitor.signIn(address, password)).status, 303, 'sign-in')));
  for (const page of ['/portal/overview', '/portal/keys', '/portal/knowledge-bases', '/portal/billing', '/portal/account']) {
    record(`GET ${page}`, await timed(requests, async () => expect((await visitor.page(page)).status, 200, page)));
  }
}
for (const [name, perRound] of figures) rows.push([name, perRound.map((ms) => median(ms))]);
console.log(`portal bench: ${rounds} rounds; each figure is the median over rounds of the round's median (p90 of the last round)`);
for (const [name, medians] of rows) {
  const last = figures.get(name)!.at(-1)!;
  console.log(`  ${name.padEnd(40)} ${median(medians).toFixed(1).padStart(7)} ms   p90 ${percentile(last, 90).toFixed(1).padStart(7)} ms`);
}
await app.close();
process.exit(0);
