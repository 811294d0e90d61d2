import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CompoundSplitter, WordListDecompounder } from '../../core/adapters/wordlist.decompounder.js';
import { loadConfig } from '../../core/config.js';
import { withCompoundParts } from '../../core/ports/decompounder.js';

const GERMAN = ['Drucker', 'Warteschlange', 'Warte', 'Schlange', 'Seite', 'Format', 'Vorlage', 'Formatvorlage', 'Daten', 'Bank', 'Verwaltung', 'Erwarte'];
const DUTCH = ['werkblad', 'functie', 'functies', 'toetsen', 'bord', 'toetsenbord', 'beeldscherm'];

describe('decompounding', () => {
  const splitter = new CompoundSplitter(new Set(GERMAN.map((w) => w.toLowerCase())), ['ens', 'es', 'en', 'er', 'n', 's', 'e']);

  it('splits a compound into the fewest listed parts, the longest head last, ignoring case', () => {
    assert.deepEqual(splitter.split('Druckerwarteschlange'), ['drucker', 'warteschlange'], 'not druck + erwarte + schlange');
    assert.deepEqual(splitter.split('Datenbankverwaltung'), ['daten', 'bank', 'verwaltung']);
    assert.deepEqual(splitter.split('SEITENFORMATVORLAGE'), ['seite', 'formatvorlage'], 'a linking element (n) between parts');
  });

  it('leaves words alone that are short, not compounds of listed words, or listed whole with no split', () => {
    assert.deepEqual(splitter.split('Drucker'), [], 'shorter than two parts');
    assert.deepEqual(splitter.split('Druckerxyzabc'), [], 'a part is not listed');
    assert.deepEqual(splitter.split('Warteschlange'), ['warte', 'schlange'], 'a listed compound is split too');
    assert.deepEqual(splitter.split('Formatvorlagex'), []);
    // Longer than any compound of the lists: left whole, never tried (every split of a 500-letter
    // run cost seconds of the event loop, on a chunk whose title was 'x' × 500).
    const head = 'abcdefghijklmnopqrstuvwxyzabcd';
    const tail = 'zyxwvutsrqponmlkjihgfedcbazy';
    const long = new CompoundSplitter(new Set([head, tail]), []);
    assert.deepEqual(long.split(`${head}${tail}`), [], '58 letters of two listed words: too long to be a compound');
    assert.deepEqual(splitter.split('x'.repeat(500)), []);
  });

  describe('from word lists on disk', () => {
    let dir: string;
    let lists: { de: string; nl: string };

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'lore-words-'));
      lists = { de: path.join(dir, 'german'), nl: path.join(dir, 'dutch') };
      await writeFile(lists.de, `${GERMAN.join('\n')}\nx\nab-cd\n`);
      await writeFile(lists.nl, `${DUTCH.join('\n')}\n`);
    });

    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('splits the compounds of a text in its language, once per occurrence; a query in every language listed', () => {
      const d = new WordListDecompounder(lists);
      assert.deepEqual(d.languages, ['de', 'nl']);
      assert.equal(d.parts('Die Druckerwarteschlange, die Druckerwarteschlange!', ['de']), 'drucker warteschlange drucker warteschlange');
      assert.equal(d.parts('Druckerwarteschlange', ['en']), '', 'English is not split');
      assert.equal(d.parts('werkbladfuncties en beeldschermtoetsenbord', ['nl']), 'werkblad functies beeldscherm toetsenbord');
      assert.equal(d.parts('Druckerwarteschlange werkbladfuncties', d.languages), 'drucker warteschlange werkblad functies');
      assert.equal(withCompoundParts(d, 'Die Druckerwarteschlange', null), 'Die Druckerwarteschlange', 'a chunk of no detected language is not split');
      assert.equal(withCompoundParts(d, 'Die Druckerwarteschlange', 'de'), 'Die Druckerwarteschlange\ndrucker warteschlange');
      assert.equal(withCompoundParts(d, 'Plain words', 'de'), 'Plain words', 'no compounds, the text as it is');
    });

    it('splits nothing for a language whose list is not installed', () => {
      const d = new WordListDecompounder({ de: path.join(dir, 'missing') });
      assert.deepEqual(d.languages, []);
      assert.equal(d.parts('Druckerwarteschlange', ['de', 'nl']), '');
    });
  });

  it('is configured by WORD_LISTS: auto (Debian\'s lists), none, or language=path pairs', () => {
    assert.deepEqual(loadConfig({}).wordLists, { de: '/usr/share/dict/ngerman', nl: '/usr/share/dict/dutch' });
    assert.deepEqual(loadConfig({ WORD_LISTS: 'none' }).wordLists, {});
    assert.deepEqual(loadConfig({ WORD_LISTS: 'de=/tmp/a,nl=/tmp/b' }).wordLists, { de: '/tmp/a', nl: '/tmp/b' });
    assert.throws(() => loadConfig({ WORD_LISTS: 'fr=/tmp/a' }), /WORD_LISTS/);
  });
});
