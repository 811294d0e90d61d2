import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CatalogueDictionary } from '../../core/adapters/catalogue.dictionary.js';
import { EldLanguageDetector } from '../../core/adapters/eld.language-detector.js';
import type { LanguageDetection, LanguageDetector } from '../../core/ports/language-detector.js';
import type { Language } from '../../core/translation/translation.schema.js';
import {
  type LanguageVocabularies,
  VOCABULARY_MAX_CONFIDENCE,
  VOCABULARY_MAX_WORDS,
  VocabularyLanguageDetector,
} from '../../core/translation/vocabulary-language-detector.js';

/** An inner detector that always gives the same answer, to reach each rule of the decorator. */
const fixedDetector = (answer: LanguageDetection): LanguageDetector => ({ detect: () => answer });

const vocabularies = (entries: Partial<Record<Language, string[]>>): LanguageVocabularies =>
  new Map(Object.entries(entries).map(([language, words]) => [language as Language, new Set(words)]));

describe('VocabularyLanguageDetector', () => {
  describe('with eld and the catalogue dictionaries Lore ships', () => {
    let eld: EldLanguageDetector;
    let detector: VocabularyLanguageDetector;
    before(async () => {
      eld = await EldLanguageDetector.load('large');
      detector = new VocabularyLanguageDetector(eld, await new CatalogueDictionary().vocabularies());
    });

    it('mends short texts eld takes for another language or for none', () => {
      const cases: Array<[string, Language | null, Language]> = [
        // text, eld's own answer, the answer with the vocabularies
        ['Documents vierges', 'en', 'fr'],
        ['Impression brochures', 'en', 'fr'],
        ['pegar resultados de fórmulas', null, 'es'],
        ["valuta's opmaak", null, 'nl'],
        ['Menüs Kontextmenüs aktivieren', null, 'de'],
        ['Solveur', null, 'fr'],
      ];
      for (const [text, eldAnswer, answer] of cases) {
        assert.equal(eld.detect(text).language, eldAnswer, `eld on ${text}`);
        const detected = detector.detect(text);
        assert.equal(detected.language, answer, text);
        assert.ok(detected.confidence > 0 && detected.confidence <= VOCABULARY_MAX_CONFIDENCE, `${text}: ${detected.confidence}`);
      }
    });

    it("leaves eld's confident answers, text in none of the eight languages, and ties as they were", () => {
      for (const text of [
        'Tipo di documento in LibreOffice',
        'mettre à jour mes coordonnées bancaires',
        'Das Wetter ist heute herrlich und wir gehen an den Strand.',
        // Portuguese and Russian: null, as eld answers.
        'como redefinir a minha senha',
        'cancelar a assinatura',
        'отменить подписку',
        '12345',
        // English and French both know both words: eld's English stays.
        'Insertion images',
      ]) {
        assert.deepEqual(detector.detect(text), eld.detect(text), text);
      }
    });
  });

  describe('its rules', () => {
    const words = vocabularies({ fr: ['documents', 'vierge', 'de'], en: ['documents', 'blank'], es: ['de'], it: ['de'] });

    it('overrules an unsure answer only with a language that knows more of the words than it and than any other', () => {
      const unsure = fixedDetector({ language: 'en', confidence: 0.1 });
      // "vierges" is known as "vierge", French's dictionary form.
      assert.deepEqual(new VocabularyLanguageDetector(unsure, words).detect('Documents vierges'), { language: 'fr', confidence: VOCABULARY_MAX_CONFIDENCE / 2 });
      // English knows as many as French: the inner answer stays.
      assert.deepEqual(new VocabularyLanguageDetector(unsure, words).detect('documents'), { language: 'en', confidence: 0.1 });
      // The inner answer is already the vocabulary's.
      const french = fixedDetector({ language: 'fr', confidence: 0.05 });
      assert.deepEqual(new VocabularyLanguageDetector(french, words).detect('Documents vierges'), { language: 'fr', confidence: 0.05 });
    });

    it('keeps a confident answer, and a long text, whatever the vocabulary says', () => {
      const sure = fixedDetector({ language: 'en', confidence: VOCABULARY_MAX_CONFIDENCE });
      assert.equal(new VocabularyLanguageDetector(sure, words).detect('Documents vierges').language, 'en');
      const unsure = fixedDetector({ language: 'en', confidence: 0 });
      const long = Array.from({ length: VOCABULARY_MAX_WORDS + 1 }, () => 'vierge').join(' ');
      assert.equal(new VocabularyLanguageDetector(unsure, words).detect(long).language, 'en');
      const short = Array.from({ length: VOCABULARY_MAX_WORDS }, () => 'vierge').join(' ');
      assert.equal(new VocabularyLanguageDetector(unsure, words).detect(short).language, 'fr');
    });

    it('answers where the inner detector found no language only when one language knows every word', () => {
      const none = fixedDetector({ language: null, confidence: 0 });
      assert.equal(new VocabularyLanguageDetector(none, words).detect('vierge blank').language, null);
      assert.equal(new VocabularyLanguageDetector(none, words).detect('documents vierges').language, 'fr');
      // Three languages know "de" alike: no answer.
      assert.equal(new VocabularyLanguageDetector(none, words).detect('de').language, null);
      assert.equal(new VocabularyLanguageDetector(none, words).detect('12345 ???').language, null);
    });
  });
});

describe('CatalogueDictionary.vocabularies', () => {
  it("holds each language's headwords over all its pairs, read once for every dictionary of a directory", async () => {
    const shipped = await new CatalogueDictionary().vocabularies();
    assert.equal(shipped.size, 8);
    for (const [language, words] of shipped) assert.ok(words.size > 5000, `${language}: ${words.size}`);
    assert.equal(await new CatalogueDictionary().vocabularies(), shipped);

    const dir = await mkdtemp(path.join(tmpdir(), 'lore-vocabulary-'));
    try {
      await writeFile(path.join(dir, 'fr-en.tsv.gz'), gzipSync('fichier\tfile\nvierge\tblank\n'));
      await writeFile(path.join(dir, 'fr-es.tsv.gz'), gzipSync('fichier\tarchivo\npolice\ttipografía\n'));
      await writeFile(path.join(dir, 'en-fr.tsv.gz'), gzipSync('file\tfichier\n'));
      const own = await new CatalogueDictionary({ dir }).vocabularies();
      assert.deepEqual([...own.keys()].sort(), ['en', 'fr']);
      assert.deepEqual([...own.get('fr')!].sort(), ['fichier', 'police', 'vierge']);
      assert.deepEqual([...own.get('en')!], ['file']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
