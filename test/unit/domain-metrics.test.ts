import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { ApertiumTranslator } from '../../core/adapters/apertium.translator.js';
import { CompositeTranslator } from '../../core/adapters/composite.translator.js';
import { LibreTranslateTranslator } from '../../core/adapters/libretranslate.translator.js';
import { TranslatorError } from '../../core/ports/translator.js';
import { createDomainMetrics, createRegistry } from '../../runtime/prometheus.domain-metrics.js';
import { FakeLibreTranslateServer } from '../support/fake-libretranslate.server.js';

/** The value of one series in a registry's text output (0 when it does not exist). */
async function valueOf(registry: Registry, series: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const EN_ES = { source: 'en', target: 'es' } as const;

describe('domain metrics: the Prometheus adapter', () => {
  it('keeps one registry per process: a second set of domain metrics in the same registry is refused', () => {
    const registry = createRegistry();
    createDomainMetrics(registry);
    assert.throws(() => createDomainMetrics(registry), /already been registered/);
    assert.doesNotThrow(() => createDomainMetrics(createRegistry()));
  });

  describe('translation calls, through CompositeTranslator', () => {
    let dir: string;
    let lt: FakeLibreTranslateServer;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'lore-metrics-apertium-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));
    beforeEach(async () => {
      lt = await FakeLibreTranslateServer.start();
    });
    afterEach(() => lt.close());

    it('times every engine call by engine and outcome, and counts failures by engine and reason', async () => {
      // Apertium made to fail the real way: its program crashes (it still lists its mode).
      const crashing = path.join(dir, 'apertium');
      await writeFile(crashing, '#!/bin/sh\nif [ "$1" = "-l" ]; then echo "eng-spa"; exit 0; fi\necho "Segmentation fault" >&2; exit 139\n');
      await chmod(crashing, 0o755);
      const registry = createRegistry();
      const metrics = createDomainMetrics(registry);
      const libre = new LibreTranslateTranslator({ url: lt.url, retryBaseDelayMs: 1, maxRetries: 0 });
      const composite = new CompositeTranslator([new ApertiumTranslator({ binary: crashing }), libre], { metrics });
      await composite.discover();

      // LibreTranslate (preferred) answers 503, then Apertium crashes: both calls fail.
      lt.failNext(1, { status: 503 });
      await assert.rejects(composite.translate(['The house is big.'], EN_ES), TranslatorError);
      assert.equal(await valueOf(registry, 'lore_translation_failures_total{engine="libretranslate",reason="unavailable"}'), 1);
      assert.equal(await valueOf(registry, 'lore_translation_failures_total{engine="apertium",reason="failed"}'), 1);
      assert.equal(await valueOf(registry, 'lore_translation_duration_seconds_count{engine="libretranslate",outcome="failed"}'), 1);
      assert.equal(await valueOf(registry, 'lore_translation_duration_seconds_count{engine="apertium",outcome="failed"}'), 1);

      // LibreTranslate answers again: one timed success, no new failure.
      assert.equal((await composite.translate(['The house is big.'], EN_ES)).engine, 'libretranslate');
      assert.equal(await valueOf(registry, 'lore_translation_duration_seconds_count{engine="libretranslate",outcome="translated"}'), 1);
      assert.equal(await valueOf(registry, 'lore_translation_failures_total{engine="libretranslate",reason="unavailable"}'), 1);
    });

    it('times the installed Apertium when it translates', async () => {
      const registry = createRegistry();
      const composite = new CompositeTranslator([new ApertiumTranslator()], { metrics: createDomainMetrics(registry) });
      const { texts } = await composite.translate(['The house is big.'], EN_ES);
      assert.match(texts[0]!, /casa/);
      assert.equal(await valueOf(registry, 'lore_translation_duration_seconds_count{engine="apertium",outcome="translated"}'), 1);
      assert.ok((await valueOf(registry, 'lore_translation_duration_seconds_sum{engine="apertium",outcome="translated"}')) > 0);
      assert.doesNotMatch(await registry.metrics(), /lore_translation_failures_total\{/);
    });
  });
});
