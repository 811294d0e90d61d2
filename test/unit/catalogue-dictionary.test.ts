import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mo } from 'gettext-parser';
import { CatalogueDictionary, catalogueWords, parseCatalogueDictionary } from '../../core/adapters/catalogue.dictionary.js';
import { SUPPORTED_LANGUAGES } from '../../core/translation/translation.schema.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('catalogue dictionaries (software vocabulary from gettext catalogues)', () => {
  it('reads the words of a user-interface string: no printf conversions, markup or accelerators, lower-cased, two letters or more', () => {
    assert.deepEqual(catalogueWords('_Save %s as <b>%1$d</b> &Files: {0} l’écran %(name)s 100 %%'), ['save', 'as', 'files', 'écran']);
    assert.deepEqual(catalogueWords('Запазване на _файла'), ['запазване', 'на', 'файла']);
    assert.deepEqual(catalogueWords(''), []);
  });

  it('ships a dictionary for every ordered pair of the eight languages, with the software senses of words', async () => {
    const dictionary = new CatalogueDictionary();
    const pairs = await dictionary.pairs();
    assert.equal(pairs.size, 56);
    for (const source of SUPPORTED_LANGUAGES) for (const target of SUPPORTED_LANGUAGES) if (source !== target) assert.ok(pairs.has(`${source}-${target}`));
    const of = (words: Array<{ word: string; translations: string[] }>, word: string) => words.find((w) => w.word === word)?.translations;
    const [french] = await dictionary.lookUp(['Enregistrer le fichier Zorblax'], { source: 'fr', target: 'es' });
    assert.deepEqual(french!.map((w) => w.word), ['enregistrer', 'le', 'fichier', 'zorblax']);
    assert.ok(of(french!, 'enregistrer')?.includes('guardar'));
    assert.ok(of(french!, 'fichier')?.includes('archivo'));
    assert.deepEqual(of(french!, 'zorblax'), ['zorblax'], 'a word it does not know is its own translation');
    const [german] = await dictionary.lookUp(['Datei speichern'], { source: 'de', target: 'en' });
    assert.ok(of(german!, 'datei')?.includes('file'));
    assert.ok(of(german!, 'speichern')?.includes('save'));
    // A plural the strings never use is looked up as its singular, the word kept as asked.
    const [plural] = await dictionary.lookUp(['présentations'], { source: 'fr', target: 'es' });
    assert.equal(plural![0]!.word, 'présentations');
    assert.ok(plural![0]!.translations.some((t) => t.startsWith('presentaci')), JSON.stringify(plural));
    const [bulgarian] = await dictionary.lookUp(['folder'], { source: 'en', target: 'bg' });
    assert.ok(of(bulgarian!, 'folder')?.includes('папка'));
  });

  it('lists only the pairs a directory has, fails on a damaged file, and reads it again once mended', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-catalogues-'));
    try {
      assert.deepEqual([...(await new CatalogueDictionary({ dir }).pairs())], []);
      assert.deepEqual([...(await new CatalogueDictionary({ dir: path.join(dir, 'missing') }).pairs())], []);
      await writeFile(path.join(dir, 'en-de.tsv.gz'), 'not gzip at all');
      await writeFile(path.join(dir, 'en-xx.tsv.gz'), gzipSync('a\tb\n'));
      const dictionary = new CatalogueDictionary({ dir });
      assert.deepEqual([...(await dictionary.pairs())], ['en-de']);
      await assert.rejects(dictionary.lookUp(['file'], { source: 'en', target: 'de' }));
      await writeFile(path.join(dir, 'en-de.tsv.gz'), gzipSync('file\tdatei\tdokument\n'));
      assert.deepEqual(await dictionary.lookUp(['file'], { source: 'en', target: 'de' }), [[{ word: 'file', translations: ['datei', 'dokument'] }]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    assert.deepEqual([...parseCatalogueDictionary('a\tb\tc\n\nlone\n')], [['a', ['b', 'c']]]);
  });

  it('scripts/build-catalogue-dictionaries.ts aligns the words of catalogues that translate the same strings', async function () {
    this.timeout(60_000);
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-catalogue-build-'));
    try {
      // Two languages' catalogues of one domain, and one of another domain only German has.
      const strings: Array<[string, string, string]> = [
        ['Save file', 'Datei speichern', 'Enregistrer le fichier'],
        ['Open file', 'Datei öffnen', 'Ouvrir le fichier'],
        ['Close file', 'Datei schließen', 'Fermer le fichier'],
        ['Save', 'Speichern', 'Enregistrer'],
        ['Save all', 'Alle speichern', 'Tout enregistrer'],
        ['Open', 'Öffnen', 'Ouvrir'],
        ['Open all', 'Alle öffnen', 'Tout ouvrir'],
        ['Close', 'Schließen', 'Fermer'],
        ['Close all', 'Alle schließen', 'Tout fermer'],
        ['File', 'Datei', '_Fichier'],
      ];
      const catalogue = (column: 1 | 2) => ({
        charset: 'utf-8',
        headers: { 'Content-Type': 'text/plain; charset=UTF-8' },
        translations: { '': Object.fromEntries(strings.map((s) => [s[0], { msgid: s[0], msgstr: [s[column]] }])) },
      });
      for (const [language, column] of [['de', 1], ['fr', 2]] as const) {
        await mkdir(path.join(dir, 'locale', language, 'LC_MESSAGES'), { recursive: true });
        await writeFile(path.join(dir, 'locale', language, 'LC_MESSAGES', 'editor.mo'), mo.compile(catalogue(column)));
      }
      await writeFile(
        path.join(dir, 'locale', 'de', 'LC_MESSAGES', 'other.mo'),
        mo.compile({ charset: 'utf-8', headers: {}, translations: { '': { Print: { msgid: 'Print', msgstr: ['Drucken'] } } } }),
      );
      const out = path.join(dir, 'out');
      await promisify(execFile)(process.execPath, [
        path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
        path.join(ROOT, 'scripts/build-catalogue-dictionaries.ts'),
        '--locale-dir', path.join(dir, 'locale'),
        '--out', out,
      ]);
      const read = async (pair: string) => parseCatalogueDictionary(gunzipSync(await readFile(path.join(out, `${pair}.tsv.gz`))).toString('utf8'));
      const germanFrench = await read('de-fr');
      assert.equal(germanFrench.get('datei')?.[0], 'fichier');
      assert.equal(germanFrench.get('speichern')?.[0], 'enregistrer');
      assert.equal(germanFrench.get('öffnen')?.[0], 'ouvrir');
      assert.equal((await read('en-de')).get('close')?.[0], 'schließen');
      assert.equal((await read('fr-en')).get('fichier')?.[0], 'file');
      // A word in fewer than three strings is left out ("drucken"); a pair with no catalogues is empty.
      assert.equal((await read('de-en')).get('drucken'), undefined);
      assert.equal((await read('nl-bg')).size, 0);
      const manifest = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8'));
      assert.deepEqual(manifest.catalogues.de, { editor: 10, other: 1 });
      assert.equal(manifest.pairs['de-fr'].strings, 10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
