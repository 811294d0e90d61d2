import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as CatalogueModule from '../../core/adapters/catalogue.dictionary.js';
import { multilingualPdf } from '../support/pdf-fixtures.js';
import { ROOT, type ServerProcess, run, startServerProcess, stopServerProcess } from '../support/process.js';

/** Inside the repository, so the compiled modules find node_modules as they do in the image (/app). */
const OUT = 'dist-test';

describe('the compiled build (npm run build) and the image that runs it', function () {
  this.timeout(300_000);
  let server: ServerProcess | undefined;
  let dataDir: string;

  before(async () => {
    await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out', OUT], { cwd: ROOT, timeout: 240_000 });
    dataDir = await mkdtemp(path.join(tmpdir(), 'lore-compiled-'));
  });
  after(async () => {
    if (server) await stopServerProcess(server);
    await rm(path.join(ROOT, OUT), { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs the API from JavaScript alone: migrations, the portal, a PDF parsed in its worker thread, a query', async () => {
    server = await startServerProcess({ DATA_DIR: dataDir }, `${OUT}/api/main.js`);
    assert.equal((await fetch(`${server.url}/health/live`)).status, 200);
    assert.equal((await fetch(`${server.url}/portal/assets/portal.css`)).status, 200);
    const admin = (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    const json = (body: unknown, key: string) => ({ method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const tenant = (await (await fetch(`${server.url}/internal/v1/tenants`, json({ name: 'Compiled', plan: 'standard' }, admin))).json()) as { api_key: string };
    const kb = (await (await fetch(`${server.url}/v1/knowledge-bases`, json({ name: 'K' }, tenant.api_key))).json()) as { id: string };
    const form = new FormData();
    form.append('metadata', JSON.stringify({ knowledge_base_id: kb.id }));
    form.append('file', new Blob([Buffer.from(await multilingualPdf())], { type: 'application/pdf' }), 'pages.pdf');
    const upload = await fetch(`${server.url}/v1/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${tenant.api_key}` }, body: form });
    assert.equal(upload.status, 202, await upload.clone().text());
    const { job_id } = (await upload.json()) as { job_id: string };
    let status = '';
    for (let i = 0; i < 200 && status !== 'completed' && status !== 'failed'; i++) {
      status = ((await (await fetch(`${server.url}/v1/jobs/${job_id}`, { headers: { authorization: `Bearer ${tenant.api_key}` } })).json()) as { status: string }).status;
      if (status !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 'completed');
    const query = await fetch(`${server.url}/v1/query`, json({ query: 'pages', top_k: 1 }, tenant.api_key));
    assert.equal(query.status, 200);
    assert.equal(((await query.json()) as { results: unknown[] }).results.length, 1);
    assert.doesNotMatch(server.output(), /tsx/);
  });

  it('compiles every entry point the image and the chart run', async () => {
    for (const entry of ['api/main.js', 'api/start.js', 'workflows/worker.js', 'operator/main.js', 'cli/lore.js', 'core/db/migrate.cli.js', 'workflows/temporal/job.workflow.js']) {
      assert.ok(existsSync(path.join(ROOT, OUT, entry)), entry);
    }
    const worker = await run(process.execPath, [`${OUT}/workflows/worker.js`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } }).then(
      () => assert.fail('the worker started without configuration'),
      (err: { stderr: string }) => err,
    );
    assert.match(worker.stderr, /needs WORKFLOW_ENGINE=temporal/);
    // The compiled operator loads its modules (the Kubernetes and Keycloak clients) and checks its configuration.
    const operator = await run(process.execPath, [`${OUT}/operator/main.js`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } }).then(
      () => assert.fail('the operator started without configuration'),
      (err: { stderr: string }) => err,
    );
    assert.match(operator.stderr, /The operator needs DATABASE_URL/);
  });

  it('ships the catalogue dictionaries beside the compiled modules, where they look for them', async () => {
    const compiled = (await import(path.join(ROOT, OUT, 'core/adapters/catalogue.dictionary.js'))) as typeof CatalogueModule;
    assert.equal(compiled.CATALOGUE_DICTIONARY_DIR, path.join(ROOT, OUT, 'dictionaries/catalogues'));
    const dictionary = new compiled.CatalogueDictionary();
    assert.equal((await dictionary.pairs()).size, 56);
    const [words] = await dictionary.lookUp(['fichier'], { source: 'fr', target: 'es' });
    assert.ok(words![0]!.translations.includes('archivo'));
  });

  it('has a Dockerfile whose every COPY source is in the build context, and whose command is a compiled entry point', async () => {
    const dockerfile = await readFile(path.join(ROOT, 'Dockerfile'), 'utf8');
    const ignored = (await readFile(path.join(ROOT, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim()).filter(Boolean);
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].map((m) => m[1]!.split(/\s+/).slice(0, -1)).flat();
    assert.ok(copies.length >= 5);
    for (const source of copies) {
      assert.ok(existsSync(path.join(ROOT, source)), `COPY ${source}: missing`);
      assert.ok(!ignored.some((pattern) => source === pattern || source.startsWith(`${pattern}/`)), `COPY ${source}: excluded by .dockerignore`);
    }
    // What the build stage compiles must be in the context: every source folder tsconfig.build.json includes.
    const build = JSON.parse(await readFile(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    for (const folder of build.include) assert.ok(copies.includes(folder), `${folder} is compiled but not copied`);
    const cmd = /^CMD \["node", "([^"]+)"\]$/m.exec(dockerfile);
    assert.ok(cmd, 'CMD runs node on a compiled file');
    assert.equal(cmd[1], 'dist/api/main.js');
    assert.ok(existsSync(path.join(ROOT, OUT, 'api/main.js')));
    assert.match(dockerfile, /^USER node$/m, 'runs as a non-root user');
    assert.match(dockerfile, /npm prune --omit=dev/, 'only production dependencies in the image');
  });
});
