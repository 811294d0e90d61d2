import assert from 'node:assert/strict';
import { chmod, copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApertiumTranslator, MAX_WORD_TRANSLATIONS, CATALAN_ROUTES, dictionaryUnits, wordTranslations } from '../../core/adapters/apertium.translator.js';
import { CatalogueDictionary } from '../../core/adapters/catalogue.dictionary.js';
import { CompositeTranslator, withVocabulary } from '../../core/adapters/composite.translator.js';
import { DeepLTranslator } from '../../core/adapters/deepl.translator.js';
import { FreeDictDictionary, MAX_DICTIONARY_TRANSLATIONS, entryTranslations } from '../../core/adapters/freedict.dictionary.js';
import { LibreTranslateTranslator } from '../../core/adapters/libretranslate.translator.js';
import { TranslatorError, type WordTranslations, pairKey } from '../../core/ports/translator.js';
import { FakeDeepLServer } from '../support/fake-deepl.server.js';
import { fakeTranslation } from '../support/fake-http.server.js';
import { FakeLibreTranslateServer } from '../support/fake-libretranslate.server.js';

async function rejection(promise: Promise<unknown>): Promise<TranslatorError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TranslatorError, `expected a TranslatorError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

/** Whether a process has ended: gone, or killed and not yet reaped by its parent (a zombie). */
async function isDead(pid: number): Promise<boolean> {
  try {
    const line = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may itself hold spaces.
    return line.slice(line.lastIndexOf(')') + 2).startsWith('Z');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** The 16 pairs Debian's Apertium packages give: en, es, fr, it among themselves, and ro into each of them. */
const APERTIUM_PAIRS = [
  ...['en', 'es', 'fr', 'it'].flatMap((s) => ['en', 'es', 'fr', 'it'].filter((t) => t !== s).map((t) => `${s}-${t}`)),
  'ro-en', 'ro-es', 'ro-fr', 'ro-it',
].sort();

describe('ApertiumTranslator (the installed Debian packages)', () => {
  const apertium = new ApertiumTranslator();

  it('finds its modes with apertium -l, and chains pairs through Spanish, or through Catalan where the routes say', async () => {
    const capabilities = await apertium.discover();
    assert.deepEqual([...capabilities.keys()].sort(), APERTIUM_PAIRS);
    for (const direct of ['en-es', 'es-en', 'fr-es', 'es-fr', 'it-es', 'es-it', 'ro-es']) assert.deepEqual(capabilities.get(direct), {});
    for (const pivot of ['en-fr', 'fr-en', 'en-it', 'it-en', 'fr-it', 'it-fr', 'ro-en', 'ro-fr', 'ro-it']) {
      assert.deepEqual(capabilities.get(pivot), { pivot: 'es' });
    }
    // Catalan's pairs translate these better than the direct pair (es-fr, fr-es) or the chain through Spanish.
    const catalan = await new ApertiumTranslator({ routes: CATALAN_ROUTES }).discover();
    for (const pair of ['es-fr', 'fr-es', 'en-fr', 'en-it', 'fr-it', 'it-fr']) assert.deepEqual(catalan.get(pair), { pivot: 'ca' }, pair);
    for (const pair of ['fr-en', 'it-en', 'ro-en', 'ro-fr', 'ro-it']) assert.deepEqual(catalan.get(pair), { pivot: 'es' }, pair);
    assert.deepEqual(Object.keys(CATALAN_ROUTES).sort(), ['en-fr', 'en-it', 'es-fr', 'fr-es', 'fr-it', 'it-fr']);
  });

  it('translates directly, through Spanish and through Catalan, without unknown-word marks', async () => {
    assert.deepEqual(await apertium.translate(['The cat is on the table.'], { source: 'en', target: 'es' }), ['El gato es en la mesa.']);
    const catalan = new ApertiumTranslator({ routes: CATALAN_ROUTES });
    // Through Catalan: English "file" is "fichier", where the chain through Spanish says "lime" (a tool).
    const [french] = await catalan.translate(['The cat is on the table. Copy files and directories.'], { source: 'en', target: 'fr' });
    assert.match(french!, /chat.*fichiers/s);
    const [throughSpanish] = await apertium.translate(['The cat is on the table. Copy files.'], { source: 'en', target: 'fr' });
    assert.match(throughSpanish!, /chat/);
    assert.doesNotMatch(throughSpanish!, /fichiers/);
    // Spanish "guiones" are scripts ("scénarios" through Catalan), not dashes ("tirets", the direct pair).
    const [scripts] = await catalan.translate(['Guiones para gestionar archivos'], { source: 'es', target: 'fr' });
    assert.match(scripts!, /Scénarios/);
    const [dashes] = await apertium.translate(['Guiones para gestionar archivos'], { source: 'es', target: 'fr' });
    assert.match(dashes!, /Tirets/);
    const [english] = await apertium.translate(['Pisica este pe masă. Zorblax.'], { source: 'ro', target: 'en' });
    assert.match(english!, /table/);
    assert.ok(english!.includes('Zorblax') && !english!.includes('*'));
  });

  it('translates a batch in one run, keeping order, paragraphs, blank texts and the separator character safe', async () => {
    const out = await apertium.translate(
      ['The house is big.', '', 'Good morning.\n\nThe dog is here.', 'The car \u241e is red.', '   '],
      { source: 'en', target: 'es' },
    );
    assert.equal(out.length, 5);
    assert.match(out[0]!, /casa/);
    assert.equal(out[1], '');
    assert.match(out[2]!, /^Buenos días\.\n\n.*perro/);
    assert.match(out[3]!, /coche|carro/);
    assert.equal(out[4], '   ');
  });

  it("looks words up in a pair's bilingual dictionary: every translation of each word, directly and through Spanish", async () => {
    const [direct, blank, known] = await apertium.lookUp(['Open the file, then the Zorblax table.', ' ', 'cells'], { source: 'en', target: 'es' });
    assert.deepEqual(blank, []);
    const of = (words: WordTranslations[] | undefined, word: string) => words?.find((w) => w.word === word)?.translations;
    // The translation picks one ("lima", a tool, for "file"); the dictionary has both.
    assert.deepEqual(of(direct, 'file')?.slice().sort(), ['archivo', 'lima']);
    assert.deepEqual(of(direct, 'table')?.slice().sort(), ['mesa', 'tabla']);
    // An unknown word is its own translation; punctuation is no word.
    assert.deepEqual(of(direct, 'Zorblax'), ['Zorblax']);
    assert.ok(direct!.every((w) => !/[,.]/.test(w.word) && w.translations.every((t) => !/[<>*@]/.test(t))));
    assert.deepEqual(of(known, 'cell')?.slice().sort(), ['celda', 'célula']);
    // Text that means something in Apertium's stream format (unbalanced brackets held the pipeline
    // until its time limit before the text was escaped) is looked up as text.
    const started = performance.now();
    const [formula, marks] = await apertium.lookUp(['VAR(Number 1 [; Number 2 [; … [; Number 255]]])', 'file^$ a/b <x> @y *z'], { source: 'en', target: 'es' });
    assert.ok(performance.now() - started < 5_000);
    assert.deepEqual(of(formula, 'Number'), ['Número']);
    assert.deepEqual(of(marks, 'file')?.slice().sort(), ['archivo', 'lima']);
    // English to French has no mode: each Spanish translation is looked up in Spanish-French.
    const [french] = await apertium.lookUp(['the cat and the table'], { source: 'en', target: 'fr' });
    assert.deepEqual(of(french, 'cat'), ['chat']);
    assert.ok(of(french, 'table')?.includes('table'));
    for (const words of french!) assert.ok(words.translations.length <= MAX_WORD_TRANSLATIONS);
    // Spanish to French translated through Catalan is still looked up in its own dictionary.
    const [spanishWords] = await new ApertiumTranslator({ routes: CATALAN_ROUTES }).lookUp(['Guiones para archivos; ocultar las celdas'], { source: 'es', target: 'fr' });
    assert.deepEqual(of(spanishWords, 'Guión')?.slice().sort(), ['Scénario', 'Tiret']);
    assert.deepEqual(of(spanishWords, 'ocultar'), ['dérober']);
    // Romanian to Spanish applies its dictionary inside its first transfer stage: looked up all the same.
    const [spanish] = await apertium.lookUp(['Pisica este pe masă.'], { source: 'ro', target: 'es' });
    assert.ok(of(spanish, 'masă')?.includes('mesa'), JSON.stringify(spanish));
  });

  it('reads the dictionary stages from the mode files; a data directory without them is unavailable', async () => {
    const units = dictionaryUnits('^file<n><sg>/lima<n><f><sg>/archivo<n><m><sg>$^.<sent>/.<sent>$ ^*Zorblax/*Zorblax$ ^a\\/b<n>/x\\/y<n>$');
    assert.deepEqual(units, [['file<n><sg>', 'lima<n><f><sg>', 'archivo<n><m><sg>'], ['*Zorblax', '*Zorblax'], ['a\\/b<n>', 'x\\/y<n>']]);
    assert.deepEqual(units.map(wordTranslations), [
      { word: 'file', translations: ['lima', 'archivo'] },
      { word: 'Zorblax', translations: ['Zorblax'] },
      { word: 'a/b', translations: ['x/y'] },
    ]);
    assert.deepEqual(wordTranslations(['take# out<vblex>', '@take# out<vblex>']), { word: 'take out', translations: ['take out'] });
    const empty = await mkdtemp(path.join(tmpdir(), 'lore-apertium-data-'));
    try {
      const error = await rejection(new ApertiumTranslator({ dataDir: empty }).lookUp(['the file'], { source: 'en', target: 'es' }));
      assert.equal(error.code, 'unavailable');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('probes every pair with a sample sentence', async () => {
    const working = await apertium.probe(await apertium.discover());
    assert.deepEqual([...working.keys()].sort(), APERTIUM_PAIRS);
    assert.ok([...working.values()].every(Boolean));
  });

  describe('choosing routes (a stand-in apertium program that lists modes)', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'lore-apertium-modes-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    async function listing(name: string, modes: string[]): Promise<string> {
      const file = path.join(dir, name);
      await writeFile(file, `#!/bin/sh\nif [ "$1" = "-l" ]; then printf '%s\\n' ${modes.join(' ')}; exit 0; fi\nexit 1\n`);
      await chmod(file, 0o755);
      return file;
    }
    const routes = async (translator: ApertiumTranslator) => Object.fromEntries([...(await translator.discover())].map(([k, r]) => [k, r.pivot ?? 'direct']));

    it('without Catalan, a pair takes its direct mode, else the chain through Spanish', async () => {
      const binary = await listing('no-catalan', ['eng-spa', 'spa-eng', 'es-fr', 'fr-es', 'spa-eng_US', 'eco-es-fr']);
      assert.deepEqual(await routes(new ApertiumTranslator({ binary })), {
        'en-es': 'direct', 'es-en': 'direct', 'es-fr': 'direct', 'fr-es': 'direct', 'en-fr': 'es', 'fr-en': 'es',
      });
    });

    it('with Catalan, the routes asked for (APERTIUM_ROUTES); a route without its modes is passed over', async () => {
      const binary = await listing('catalan', ['eng-spa', 'spa-eng', 'es-fr', 'fr-es', 'spa-cat', 'cat-spa', 'fra-cat', 'cat-fra', 'eng-cat', 'cat-eng']);
      assert.deepEqual(await routes(new ApertiumTranslator({ binary })), {
        'en-es': 'direct', 'es-en': 'direct', 'es-fr': 'direct', 'fr-es': 'direct', 'en-fr': 'es', 'fr-en': 'es',
      });
      assert.deepEqual(await routes(new ApertiumTranslator({ binary, routes: CATALAN_ROUTES })), {
        'en-es': 'direct', 'es-en': 'direct', 'es-fr': 'ca', 'fr-es': 'ca', 'en-fr': 'ca', 'fr-en': 'es',
      });
      const chosen = new ApertiumTranslator({ binary, routes: { 'fr-es': 'ca', 'fr-en': 'ca', 'en-es': 'ca', 'es-en': 'it' } });
      assert.deepEqual(await routes(chosen), {
        'en-es': 'ca', 'es-en': 'direct', 'es-fr': 'direct', 'fr-es': 'ca', 'en-fr': 'es', 'fr-en': 'ca',
      });
    });
  });

  describe('with a broken program', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'lore-fake-apertium-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    /** A stand-in `apertium` program: lists one mode, then behaves as `body` says when translating. */
    async function program(name: string, body: string): Promise<string> {
      const file = path.join(dir, name);
      await writeFile(file, `#!/bin/sh\nif [ "$1" = "-l" ]; then echo "eng-spa"; exit 0; fi\n${body}\n`);
      await chmod(file, 0o755);
      return file;
    }

    it('kills the whole pipeline of a run that exceeds its time limit (failed)', async () => {
      // Like the real `apertium` script: a shell whose pipeline (here a subshell) holds its output open.
      // Had the pipeline run to its end, it would have left `ran-out` behind.
      const binary = await program(
        'hangs',
        `(sleep 30; echo > "${dir}/ran-out") &\necho $$ $! > "${dir}/hangs.pids"\nwait`,
      );
      const error = await rejection(new ApertiumTranslator({ binary, timeoutMs: 1_000 }).translate(['x'], { source: 'en', target: 'es' }));
      assert.equal(error.code, 'failed');
      assert.match(error.message, /timed out/);
      const pids = (await readFile(path.join(dir, 'hangs.pids'), 'utf8')).trim().split(' ').map(Number);
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.ok(await isDead(pid), `process ${pid} of the pipeline is still running`);
      await assert.rejects(stat(path.join(dir, 'ran-out')), { code: 'ENOENT' }, 'the pipeline ran to its end');
    });

    it('reports a crash or an empty answer as failed, a missing program as unavailable', async () => {
      const crash = await program('crashes', 'echo "Segmentation fault" >&2; exit 139');
      assert.equal((await rejection(new ApertiumTranslator({ binary: crash }).translate(['x'], { source: 'en', target: 'es' }))).code, 'failed');
      const silent = await program('silent', 'cat > /dev/null; echo "cg-proc: command not found" >&2; exit 0');
      const empty = await rejection(new ApertiumTranslator({ binary: silent }).translate(['x'], { source: 'en', target: 'es' }));
      assert.equal(empty.code, 'failed');
      assert.match(empty.message, /no output/);
      const broken = new ApertiumTranslator({ binary: silent });
      assert.deepEqual([...(await broken.probe(await broken.discover())).values()], [false]);
      const missing = await rejection(new ApertiumTranslator({ binary: path.join(dir, 'nothing-here') }).discover());
      assert.equal(missing.code, 'unavailable');
      assert.equal(ApertiumTranslator.isInstalled(path.join(dir, 'nothing-here')), false);
      assert.equal(ApertiumTranslator.isInstalled(), true);
    });
  });
});

describe("FreeDictDictionary (Debian's dict-freedict-deu-eng, -eng-deu, -nld-eng and -eng-nld)", () => {
  const freedict = new FreeDictDictionary();
  const of = (words: WordTranslations[] | undefined, word: string) => words?.find((w) => w.word === word)?.translations;

  it('lists the installed pairs among the supported languages', async () => {
    const pairs = await freedict.pairs();
    for (const pair of ['de-en', 'en-de', 'nl-en', 'en-nl']) assert.ok(pairs.has(pair), pair);
    assert.deepEqual([...(await new FreeDictDictionary({ dir: path.join(tmpdir(), 'no-such-dictd') }).pairs())], []);
  });

  it('gives every translation of each word, computing senses first, words before phrases, from inflected forms too', async () => {
    const [german, blank] = await freedict.lookUp(['Dateien drucken, Zorblax 12', ''], { source: 'de', target: 'en' });
    assert.deepEqual(blank, []);
    assert.deepEqual(german!.map((w) => w.word), ['dateien', 'drucken', 'zorblax', '12']);
    assert.deepEqual(of(german, 'dateien'), ['files']);
    assert.ok(of(german, 'drucken')?.includes('print'));
    // Unknown words and numbers are their own translations.
    assert.deepEqual(of(german, 'zorblax'), ['zorblax']);
    assert.deepEqual(of(german, '12'), ['12']);
    // "Datei" has a computing sense ("file") before its others; at most MAX_DICTIONARY_TRANSLATIONS.
    const [english] = await freedict.lookUp(['the file'], { source: 'en', target: 'de' });
    assert.deepEqual(of(english, 'file')?.slice(0, 2), ['computerdatei', 'datei']);
    assert.ok(english!.every((w) => w.translations.length <= MAX_DICTIONARY_TRANSLATIONS && w.translations.every((t) => !/\s/.test(t))));
    // Dutch headwords are singular: "tabellen" is found as "tabel" (its ending off, the doubled consonant single).
    const [dutch] = await freedict.lookUp(['tabellen afdrukken'], { source: 'nl', target: 'en' });
    assert.ok(of(dutch, 'tabellen')?.includes('table'));
    assert.ok(of(dutch, 'afdrukken')?.includes('print'));
    const missing = await rejection(freedict.lookUp(['x'], { source: 'de', target: 'bg' }));
    assert.equal(missing.code, 'failed');
  });

  it('reports a damaged dictionary as failed, through the composite too, whatever broke', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-freedict-'));
    try {
      await copyFile('/usr/share/dictd/freedict-eng-nld.index', path.join(dir, 'freedict-eng-nld.index'));
      const text = await readFile('/usr/share/dictd/freedict-eng-nld.dict.dz');
      // The header and its chunk table kept, every chunk's data made something that does not inflate.
      const headerEnd = 12 + text.readUInt16LE(10) + 40;
      text.fill(0xff, headerEnd);
      await writeFile(path.join(dir, 'freedict-eng-nld.dict.dz'), text);
      const composite = new CompositeTranslator([], { dictionaries: [new FreeDictDictionary({ dir })] });
      const error = await rejection(composite.lookUp(['table'], { source: 'en', target: 'nl' }));
      assert.equal(error.code, 'failed');
      await writeFile(path.join(dir, 'freedict-eng-nld.dict.dz'), 'not gzip at all');
      assert.equal((await rejection(new FreeDictDictionary({ dir }).lookUp(['table'], { source: 'en', target: 'nl' }))).code, 'failed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads entries of both layouts: Ding's (one sense an entry, with examples and notes) and numbered senses", () => {
    const ding = 'Datei /datˈaɪ/ <fem, n, sg>\n [comp.] computer file <n>, file <n>\n      "eine Datei öffnen"  - open a file\n   Synonym: {Computerdatei}\n\n see: {Dateien}\n';
    assert.deepEqual(entryTranslations(ding), { translations: ['computer file', 'file'], computing: true });
    assert.deepEqual(entryTranslations('afdrukken /ɑvdrɵkən/\n1. copy\n2. mark, stamp\n3. print\n'), {
      translations: ['copy', 'mark', 'stamp', 'print'],
      computing: false,
    });
  });
});

describe('LibreTranslateTranslator (against a fake LibreTranslate server)', () => {
  let fake: FakeLibreTranslateServer;
  beforeEach(async () => {
    fake = await FakeLibreTranslateServer.start({ apiKey: 'lt-secret' });
  });
  afterEach(() => fake.close());
  const engine = (options: Partial<ConstructorParameters<typeof LibreTranslateTranslator>[0]> = {}) =>
    new LibreTranslateTranslator({ url: `${fake.url}/`, apiKey: 'lt-secret', retryBaseDelayMs: 1, ...options });

  it('lists the pairs among the supported languages from GET /languages', async () => {
    const capabilities = await engine().discover();
    assert.equal(capabilities.size, 56);
    assert.ok(!capabilities.has('en-pt') && capabilities.has('bg-nl'));
    fake.languages = ['en', 'de'];
    assert.deepEqual([...(await engine().discover()).keys()].sort(), ['de-en', 'en-de']);
  });

  it('speaks the wire format and batches texts', async () => {
    const texts = ['one', 'two', 'three', 'four', 'five'];
    assert.deepEqual(await engine({ batchSize: 2 }).translate(texts, { source: 'en', target: 'bg' }), texts.map((t) => fakeTranslation(t, 'bg')));
    assert.equal(fake.translations.length, 3);
    assert.deepEqual(fake.translations[0]!.body, { q: ['one', 'two'], source: 'en', target: 'bg', format: 'text', api_key: 'lt-secret' });
    assert.equal(fake.translations[0]!.headers['content-type'], 'application/json');
    await engine({ batchChars: 6 }).translate(['abcd', 'efgh'], { source: 'en', target: 'de' });
    assert.equal(fake.translations.length, 5);
  });

  it('retries 429 and 5xx a bounded number of times, honouring Retry-After', async () => {
    fake.failNext(1, { status: 429, headers: { 'retry-after': '0' } });
    fake.failNext(1, { status: 502 });
    assert.deepEqual(await engine().translate(['x'], { source: 'en', target: 'de' }), ['[de] x']);
    assert.equal(fake.translations.length, 3);
    fake.failNext(3, { status: 503 });
    const error = await rejection(engine().translate(['x'], { source: 'en', target: 'de' }));
    assert.equal(error.code, 'unavailable');
    assert.equal(fake.translations.length, 6);
  });

  it('maps a refused key to unavailable, a timeout and a bad answer to failed, never echoing the key', async () => {
    const refused = await rejection(engine({ apiKey: 'wrong' }).translate(['x'], { source: 'en', target: 'de' }));
    assert.equal(refused.code, 'unavailable');
    assert.ok(!refused.message.includes('wrong') && !refused.message.includes('lt-secret'));
    fake.delayMs = 500;
    assert.equal((await rejection(engine({ timeoutMs: 100 }).translate(['x'], { source: 'en', target: 'de' }))).code, 'failed');
    fake.delayMs = 0;
    fake.failNext(1, { status: 200, body: { translatedText: 'not a list' } });
    assert.equal((await rejection(engine().translate(['x', 'y'], { source: 'en', target: 'de' }))).code, 'failed');
  });

  it('is unavailable when nothing listens', async () => {
    const url = fake.url;
    await fake.close();
    const error = await rejection(new LibreTranslateTranslator({ url, retryBaseDelayMs: 1 }).discover());
    assert.equal(error.code, 'unavailable');
    fake = await FakeLibreTranslateServer.start();
  });
});

describe('DeepLTranslator (against a fake DeepL API)', () => {
  let fake: FakeDeepLServer;
  beforeEach(async () => {
    fake = await FakeDeepLServer.start({ apiKey: 'deepl-secret:fx' });
  });
  afterEach(() => fake.close());
  const engine = (options: Partial<ConstructorParameters<typeof DeepLTranslator>[0]> = {}) =>
    new DeepLTranslator({ url: fake.url, apiKey: 'deepl-secret:fx', retryBaseDelayMs: 1, ...options });

  it('lists pairs from the source and target lists, with upper-case codes and English as EN-GB', async () => {
    const deepl = engine();
    assert.equal((await deepl.discover()).size, 56);
    assert.deepEqual(fake.requests.map((r) => [r.method, r.path, r.headers.authorization]).sort(), [
      ['GET', '/v2/languages?type=source', 'DeepL-Auth-Key deepl-secret:fx'],
      ['GET', '/v2/languages?type=target', 'DeepL-Auth-Key deepl-secret:fx'],
    ]);
    assert.deepEqual(await deepl.translate(['Hallo', 'Welt'], { source: 'de', target: 'en' }), ['[en-gb] Hallo', '[en-gb] Welt']);
    assert.deepEqual(fake.translations[0]!.body, { text: ['Hallo', 'Welt'], source_lang: 'DE', target_lang: 'EN-GB' });
    fake.targets = fake.targets.filter((t) => t !== 'EN-GB');
    const us = engine();
    await us.discover();
    assert.deepEqual(await us.translate(['Hallo'], { source: 'de', target: 'en' }), ['[en-us] Hallo']);
  });

  it('sends at most 50 texts per request', async () => {
    const texts = Array.from({ length: 120 }, (_, i) => `t${i}`);
    const out = await engine().translate(texts, { source: 'en', target: 'ro' });
    assert.deepEqual(out, texts.map((t) => fakeTranslation(t, 'RO')));
    assert.deepEqual(fake.translations.map((r) => (r.body as { text: string[] }).text.length), [50, 50, 20]);
  });

  it('treats a used-up quota (456) and a wrong key as unavailable', async () => {
    fake.failNext(1, { status: 456, body: { message: 'Quota exceeded' } });
    assert.equal((await rejection(engine().translate(['x'], { source: 'en', target: 'de' }))).code, 'unavailable');
    assert.equal((await rejection(engine({ apiKey: 'other' }).discover())).code, 'unavailable');
  });
});

describe('CompositeTranslator', () => {
  let lt: FakeLibreTranslateServer;
  let deepl: FakeDeepLServer;
  beforeEach(async () => {
    lt = await FakeLibreTranslateServer.start();
    deepl = await FakeDeepLServer.start({ apiKey: 'k' });
  });
  afterEach(async () => {
    await lt.close();
    await deepl.close();
  });
  const libre = () => new LibreTranslateTranslator({ url: lt.url, retryBaseDelayMs: 1, maxRetries: 0 });
  const dl = () => new DeepLTranslator({ url: deepl.url, apiKey: 'k', retryBaseDelayMs: 1, maxRetries: 0 });

  it('prefers DeepL, then LibreTranslate, then Apertium, whatever order they are given in', async () => {
    const composite = new CompositeTranslator([new ApertiumTranslator(), libre(), dl()]);
    assert.deepEqual(composite.engines, ['deepl', 'libretranslate', 'apertium']);
    assert.deepEqual(await composite.candidates({ source: 'en', target: 'es' }), ['deepl', 'libretranslate', 'apertium']);
    assert.deepEqual(await composite.translate(['x'], { source: 'en', target: 'es' }), { texts: ['[es] x'], engine: 'deepl' });
    deepl.failNext(1, { status: 500 });
    assert.deepEqual(await composite.translate(['x'], { source: 'en', target: 'es' }), { texts: ['[es] x'], engine: 'libretranslate' });
    deepl.failNext(1, { status: 500 });
    lt.failNext(1, { status: 500 });
    const viaApertium = await composite.translate(['The house is big.'], { source: 'en', target: 'es' });
    assert.equal(viaApertium.engine, 'apertium');
    assert.match(viaApertium.texts[0]!, /casa/);
  });

  it('looks words up with the first engine serving the pair that has dictionaries (Apertium), or answers null', async () => {
    const composite = new CompositeTranslator([new ApertiumTranslator(), libre(), dl()]);
    const found = await composite.lookUp(['the file'], { source: 'en', target: 'es' });
    assert.equal(found?.source, 'apertium');
    assert.ok(found.words[0]!.some((w) => w.word === 'file' && w.translations.includes('archivo')));
    // LibreTranslate serves English to German; no engine with dictionaries does.
    assert.equal(await composite.lookUp(['the file'], { source: 'en', target: 'de' }), null);
    assert.equal(await new CompositeTranslator([libre()]).lookUp(['the file'], { source: 'en', target: 'es' }), null);
    // Then the dictionaries: FreeDict has English–German; Apertium still answers English–Spanish.
    const withDictionaries = new CompositeTranslator([new ApertiumTranslator(), libre()], { dictionaries: [new FreeDictDictionary()] });
    const german = await withDictionaries.lookUp(['the file'], { source: 'en', target: 'de' });
    assert.equal(german?.source, 'freedict');
    assert.ok(german.words[0]!.some((w) => w.word === 'file' && w.translations.includes('datei')));
    assert.equal((await withDictionaries.lookUp(['the file'], { source: 'en', target: 'es' }))?.source, 'apertium');
    assert.equal(await withDictionaries.lookUp(['the file'], { source: 'en', target: 'bg' }), null);
  });

  it("adds a vocabulary's translations to every look-up's (Apertium's, FreeDict's), or looks up in it alone", async () => {
    const vocabularies = [new CatalogueDictionary()];
    const composite = new CompositeTranslator([new ApertiumTranslator()], { dictionaries: [new FreeDictDictionary()], vocabularies });
    // Apertium's French–Spanish dictionary, then the software words: "enregistrer" is also "guardar".
    const french = await composite.lookUp(['Enregistrer le fichier'], { source: 'fr', target: 'es' });
    assert.equal(french?.source, 'apertium+catalogues');
    const save = french.words[0]!.find((w) => w.word.toLowerCase() === 'enregistrer');
    assert.ok(save?.translations.includes('guardar'), JSON.stringify(french.words));
    assert.equal(new Set(save!.translations).size, save!.translations.length);
    // FreeDict's English–German, then the software words.
    assert.equal((await composite.lookUp(['the file'], { source: 'en', target: 'de' }))?.source, 'freedict+catalogues');
    // Nothing else has English–Bulgarian: the vocabulary alone, every word (an unknown one as itself).
    const bulgarian = await composite.lookUp(['open the folder zorblax'], { source: 'en', target: 'bg' });
    assert.equal(bulgarian?.source, 'catalogues');
    assert.ok(bulgarian.words[0]!.find((w) => w.word === 'folder')?.translations.includes('папка'));
    assert.deepEqual(bulgarian.words[0]!.find((w) => w.word === 'zorblax')?.translations, ['zorblax']);
    assert.equal(await new CompositeTranslator([new ApertiumTranslator()]).lookUp(['the folder'], { source: 'en', target: 'bg' }), null);
  });

  it('merges a vocabulary into a look-up word by word: its translations after the others, its own words after theirs, its unknown words not at all', () => {
    const known = [
      { word: 'Enregistrer', translations: ['registrar'] },
      { word: 'fichier', translations: ['lima', 'archivo'] },
    ];
    const vocabulary = [
      { word: 'enregistrer', translations: ['registrar', 'guardar'] },
      { word: 'le', translations: ['le'] },
      { word: 'fichier', translations: ['fichero', 'archivo'] },
      { word: 'police', translations: ['tipografía'] },
    ];
    assert.deepEqual(withVocabulary(known, vocabulary), [
      { word: 'Enregistrer', translations: ['registrar', 'guardar'] },
      { word: 'fichier', translations: ['lima', 'archivo', 'fichero'] },
      { word: 'police', translations: ['tipografía'] },
    ]);
    assert.deepEqual(known[0]!.translations, ['registrar'], 'the look-up it was given is left as it was');
  });

  it('reports every pair: loaded by the best working engine, failed, or unavailable', async () => {
    const apertiumOnly = new CompositeTranslator([new ApertiumTranslator()]);
    const statuses = await apertiumOnly.health();
    assert.equal(statuses.length, 56);
    assert.deepEqual(statuses.filter((s) => s.status === 'loaded').map((s) => pairKey(s)).sort(), APERTIUM_PAIRS);
    assert.ok(statuses.filter((s) => s.status !== 'loaded').every((s) => s.status === 'unavailable' && s.engine === null));
    assert.deepEqual(statuses.find((s) => pairKey(s) === 'ro-en'), { source: 'ro', target: 'en', status: 'loaded', engine: 'apertium', pivot: 'es' });

    const both = new CompositeTranslator([new ApertiumTranslator(), libre()], { healthTtlMs: 0 });
    assert.ok((await both.health()).every((s) => s.status === 'loaded' && s.engine === 'libretranslate'));
    lt.failNext(1, { status: 503 });
    const degraded = await both.health();
    assert.equal(degraded.find((s) => pairKey(s) === 'en-es')?.engine, 'apertium');
    assert.deepEqual(degraded.find((s) => pairKey(s) === 'en-de'), { source: 'en', target: 'de', status: 'failed', engine: 'libretranslate', pivot: null });
  });

  it('answers unavailable, not unsupported, for a pair only an unreachable engine might serve; asks it again later', async () => {
    let now = 0;
    const composite = new CompositeTranslator([new ApertiumTranslator(), libre()], { now: () => now, rediscoverAfterMs: 1000 });
    lt.failNext(1, { status: 503 });
    await composite.discover();
    assert.equal((await rejection(composite.candidates({ source: 'en', target: 'de' }))).code, 'unavailable');
    assert.deepEqual(await composite.candidates({ source: 'en', target: 'es' }), ['apertium']);
    const asked = lt.requests.length;
    now = 500;
    assert.equal((await rejection(composite.candidates({ source: 'en', target: 'de' }))).code, 'unavailable');
    assert.equal(lt.requests.length, asked);
    now = 2000;
    assert.deepEqual(await composite.candidates({ source: 'en', target: 'de' }), ['libretranslate']);
    assert.deepEqual(await composite.candidates({ source: 'en', target: 'es' }), ['libretranslate', 'apertium']);
    assert.deepEqual(await new CompositeTranslator([]).candidates({ source: 'en', target: 'de' }), []);
  });
});
