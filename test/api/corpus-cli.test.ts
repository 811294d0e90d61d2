import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { client } from '../support/app.js';
import { runCli, startServerProcess, stopServerProcess } from '../support/process.js';

describe('the corpus CLI', function () {
  this.timeout(300_000);
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-corpus-cli-'));
    env = { DATA_DIR: path.join(dir, 'data') };
    await fs.mkdir(path.join(dir, 'docs/andes'), { recursive: true });
    await fs.writeFile(path.join(dir, 'docs/alpaca.txt'), 'Alpacas are domesticated camelids bred for their fleece.');
    await fs.writeFile(path.join(dir, 'docs/andes/llama.md'), '# Llamas\n\nLlamas carry loads across the Andes mountains.');
    await fs.writeFile(path.join(dir, 'docs/andes/vicuna.html'), '<html><head><title>x</title></head><body><h1>Vicuñas</h1><p>Vicuñas live high in the <b>Andes</b>.</p></body></html>');
    await fs.writeFile(path.join(dir, 'docs/photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await fs.writeFile(path.join(dir, 'docs/blank.txt'), '  \n');
    const jsonl = [
      { source_record_id: 'vicuna', content: 'Vicuñas grow the finest wool of any camelid.', metadata: { country: 'PE', year: 2020 } },
      { source_record_id: 'guanaco', content: 'Guanacos graze the dry steppe of Patagonia.', metadata: { country: 'AR' } },
    ];
    await fs.writeFile(path.join(dir, 'records.jsonl'), `${jsonl.map((r) => JSON.stringify(r)).join('\n')}\n\n`);
    await fs.writeFile(path.join(dir, 'broken.jsonl'), `${JSON.stringify(jsonl[0])}\n{"source_record_id": "x", "content": 5}\n`);
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const cli = async (...args: string[]) => JSON.parse((await runCli(args, env)).stdout);

  it('creates a corpus and ingests a folder and a JSONL file, directly and through the running server', async () => {
    // No server runs yet: the CLI opens the database itself and runs the ingestion jobs.
    const corpus = await cli('corpus', 'create', '--slug', 'camelids', '--name', 'Camelids', '--plans', 'standard,enterprise', '--license', 'CC0');
    assert.equal(corpus.slug, 'camelids');
    assert.deepEqual(corpus.plans, ['standard', 'enterprise']);
    assert.equal(corpus.license_info, 'CC0');
    const folder = await cli('corpus', 'ingest', 'camelids', path.join(dir, 'docs'));
    assert.equal(folder.records, 3);
    assert.deepEqual(folder.skipped, ['blank.txt', 'photo.png']);
    assert.deepEqual(folder.jobs.map((j: { status: string; records: number }) => [j.status, j.records]), [['completed', 3]]);

    // A malformed file is refused as a whole, naming the line.
    await assert.rejects(runCli(['corpus', 'ingest', 'camelids', path.join(dir, 'broken.jsonl')], env), (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /line 2: content: /);
      return true;
    });
    await assert.rejects(runCli(['corpus', 'create', '--slug', 'Bad Slug', '--name', 'x', '--plans', 'free'], env));

    const server = await startServerProcess(env);
    try {
      // With the server running, the CLI goes through its internal admin API.
      const tenant = await cli('tenant', 'create', '--name', 'Zoo', '--plan', 'standard');
      const api = client(server.url, tenant.api_key);
      const llama = await api('POST', '/v1/query', { query: 'llamas carry loads in the Andes', top_k: 1 });
      assert.equal(llama.status, 200);
      assert.deepEqual(llama.body.results, [
        {
          // Markdown and HTML records are read as uploads read them: their text, without markup.
          content: 'Llamas\n\nLlamas carry loads across the Andes mountains.',
          score: llama.body.results[0].score,
          source: 'camelids',
          source_record_id: 'andes/llama.md',
          metadata: { path: 'andes/llama.md' },
        },
      ]);

      const vicuna = await api('POST', '/v1/query', { query: 'vicuñas live high', top_k: 1 });
      assert.deepEqual(
        vicuna.body.results.map((r: { source_record_id: string; content: string }) => [r.source_record_id, r.content]),
        [['andes/vicuna.html', 'Vicuñas\n\nVicuñas live high in the Andes.']],
      );

      const jsonl = await cli('corpus', 'ingest', 'camelids', path.join(dir, 'records.jsonl'));
      assert.equal(jsonl.records, 2);
      assert.deepEqual(jsonl.jobs.map((j: { status: string; total_chunks: number }) => [j.status, j.total_chunks]), [['completed', 2]]);
      const peru = await api('POST', '/v1/query', { query: 'camelid wool', metadata_filter: { country: 'PE' } });
      assert.deepEqual(
        peru.body.results.map((r: { source_record_id: string; metadata: unknown }) => [r.source_record_id, r.metadata]),
        [['vicuna', { country: 'PE', year: 2020 }]],
      );

      const listed = await cli('corpus', 'list');
      const [camelids] = listed.corpora;
      assert.deepEqual([camelids.slug, camelids.records, camelids.chunk_count], ['camelids', { pending: 0, ready: 5, failed: 0 }, 5]);
      assert.equal((await cli('corpus', 'jobs', 'camelids')).jobs.length, 2);
      const updated = await cli('corpus', 'update', 'camelids', '--requires-dua', 'true');
      assert.equal(updated.requires_dua, true);
      const hidden = await api('POST', '/v1/query', { query: 'llamas carry loads in the Andes' });
      assert.deepEqual(hidden.body.results, []);
      assert.deepEqual(await cli('corpus', 'delete', 'camelids'), { deleted: 'camelids' });
      assert.deepEqual((await api('GET', '/v1/corpora')).body, { corpora: [] });
    } finally {
      await stopServerProcess(server);
    }
  });
});
