import assert from 'node:assert/strict';
import { CatalogueDictionary } from '../../core/adapters/catalogue.dictionary.js';
import { Bm25Query } from '../../core/search/bm25.js';
import { synonymsOfSearchedLanguages, withSynonyms, withTranslatedWords } from '../../core/search/search.service.js';
import { SYNONYMS, pivotsOf, querySynonyms } from '../../core/search/synonyms.js';

describe('query synonyms (a round trip through another language in the catalogue dictionaries)', () => {
  const dictionary = new CatalogueDictionary();
  const synonymsOf = async (query: string, language: 'es' | 'de' | 'it' | 'en') =>
    new Map((await querySynonyms(dictionary, query, SYNONYMS, [language])).map((s) => [s.word, s.synonyms]));

  it('pairs every language with English, then Spanish, then French, less its own', () => {
    assert.deepEqual(pivotsOf('es', 1), ['en']);
    assert.deepEqual(pivotsOf('bg', 2), ['en', 'es']);
    assert.deepEqual(pivotsOf('en', 2), ['es', 'fr']);
    assert.deepEqual(pivotsOf('es', 3), ['en', 'fr']);
  });

  it('finds the software synonyms of Spanish, German and Italian words', async () => {
    const spanish = await synonymsOf('archivo borrar carpeta', 'es');
    assert.ok(spanish.get('archivo')?.includes('fichero'), JSON.stringify([...spanish]));
    assert.ok(spanish.get('borrar')?.includes('eliminar'));
    assert.ok(spanish.get('carpeta')?.includes('directorio'));
    assert.ok((await synonymsOf('ordner', 'de')).get('ordner')?.includes('verzeichnis'));
    assert.ok((await synonymsOf('cancellare', 'it')).get('cancellare')?.includes('eliminare'));
  });

  it('leaves out the word itself (accents aside), the pivot language\'s words, short words and words the dictionary does not know', async () => {
    const spanish = await synonymsOf('archivo zorblaxqu', 'es');
    assert.ok(!spanish.has('zorblaxqu'), 'an unknown word has no synonyms');
    for (const [word, synonyms] of spanish) {
      assert.ok(!synonyms.includes(word));
      assert.ok(synonyms.every((s) => s.length >= 3), JSON.stringify(synonyms));
      assert.ok(!synonyms.includes('file'), 'the English pivot is not a Spanish synonym');
    }
    // "borrar" → "delete", "remove" → back: Spanish words, and "delete" left untranslated in some catalogues.
    assert.ok(!(await synonymsOf('borrar', 'es')).get('borrar')?.includes('delete'));
  });

  it('asks only the languages given, and none when the dictionary has no pair for them', async () => {
    const none = await querySynonyms({ name: 'empty', pairs: () => Promise.resolve(new Set<string>()), lookUp: () => Promise.resolve([]) }, 'archivo', SYNONYMS);
    assert.deepEqual(none, []);
    const spanishOnly = await querySynonyms(dictionary, 'archivo', SYNONYMS, ['es']);
    assert.ok(spanishOnly.length > 0 && spanishOnly.every((s) => s.language === 'es'));
  });
});

describe('query words with synonyms (withSynonyms)', () => {
  const words = [
    [{ lexeme: 'archiv', analyses: ['spanish'] }, { lexeme: 'archivo', analyses: ['english', 'simple'] }],
    [{ lexeme: 'disc', analyses: ['spanish'] }],
  ];

  it('adds a synonym\'s lexemes to the word whose lexeme its language makes, weighted and for that language only', () => {
    const out = withSynonyms(words, [{ analysis: 'spanish', word: ['archiv'], synonyms: ['fich', 'archiv'] }], 0.5);
    assert.deepEqual(out[0], [...words[0]!, { lexeme: 'fich', analyses: ['spanish'], weight: 0.5 }], 'a lexeme the word has is not added again');
    assert.deepEqual(out[1], words[1]);
    assert.deepEqual(withSynonyms(words, [{ analysis: 'spanish', word: ['unknown'], synonyms: ['fich'] }], 0.5), words, 'no query word makes that lexeme');
    assert.deepEqual(withSynonyms(words, [{ analysis: 'spanish', word: ['archiv'], synonyms: ['fich'] }], 0), words, 'weight 0: none');
  });

  it('weighs a synonym\'s form by its weight in the ranking', () => {
    const statistics = { chunks: 100, chunksByAnalysis: new Map([['spanish', 100]]), lexemes: 1000, holding: new Map([['archiv', 10], ['fich', 10]]) };
    const query = new Bm25Query(withSynonyms(words, [{ analysis: 'spanish', word: ['archiv'], synonyms: ['fich'] }], 0.5), statistics);
    const idf = (lexeme: string) => query.lexemes.find((l) => l.lexeme === lexeme)!.idf;
    assert.ok(Math.abs(idf('fich') - idf('archiv') / 2) < 1e-12, `${idf('fich')} against ${idf('archiv')}`);
    assert.deepEqual(query.lexemes.map((l) => l.word), [0, 0], 'both are forms of the first word');
  });

  it('keeps a language\'s synonyms only where it holds at least a tenth of the searched chunks', () => {
    const withBoth = [[{ lexeme: 'archiv', analyses: ['spanish'] }, { lexeme: 'fich', analyses: ['spanish'], weight: 0.5 }, { lexeme: 'record', analyses: ['english'], weight: 0.5 }]];
    const statistics = (english: number) => ({ chunks: 100, chunksByAnalysis: new Map([['spanish', 100 - english], ['english', english]]), lexemes: 1000, holding: new Map<string, number>() });
    assert.deepEqual(synonymsOfSearchedLanguages(withBoth, statistics(9))[0]!.map((f) => f.lexeme), ['archiv', 'fich']);
    assert.deepEqual(synonymsOfSearchedLanguages(withBoth, statistics(10))[0]!.map((f) => f.lexeme), ['archiv', 'fich', 'record']);
    const ownForm = [[{ lexeme: 'archivo', analyses: ['english'] }]];
    assert.deepEqual(synonymsOfSearchedLanguages(ownForm, statistics(0)), ownForm, 'the query\'s own forms stay whatever their language');
  });

  it('moves a word\'s synonyms to the dictionary word that covers it in a translated search', () => {
    // The engine's "fila" (with the lexeme of its synonym "línea") and "tabla"; the dictionary's "fila"/"renglón" for "row".
    const own = [
      [{ lexeme: 'fil', analyses: ['spanish'] }, { lexeme: 'lin', analyses: ['spanish'], weight: 0.5 }],
      [{ lexeme: 'tabl', analyses: ['spanish'] }, { lexeme: 'cuadr', analyses: ['spanish'], weight: 0.5 }],
    ];
    const translated = [[{ lexeme: 'fil', analyses: ['spanish'] }, { lexeme: 'renglon', analyses: ['spanish'] }]];
    const covered = (f: { lexeme: string }) => f.lexeme === 'fil' || f.lexeme === 'renglon';
    const out = withTranslatedWords(own, translated, covered);
    assert.deepEqual(out, [[...translated[0]!, { lexeme: 'lin', analyses: ['spanish'], weight: 0.5 }], own[1]], 'the covered word\'s synonym joins the dictionary word; the uncovered word stays as it is');
    assert.deepEqual(translated[0]!.length, 2, 'the dictionary words given are not changed');
    assert.deepEqual(withTranslatedWords(own, translated, () => false), [...translated, ...own], 'nothing covered: every word stays');
  });
});
