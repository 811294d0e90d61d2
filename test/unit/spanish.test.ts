import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { SPANISH_STOP_WORDS, spanishKeywordText, spanishLexeme, spanishStem } from '../../core/search/spanish.js';

/** Asserts every form of a family stems to `stem`, naming the forms that do not. */
function assertFamily(stem: string, forms: string[]): void {
  assert.deepEqual(
    forms.map((form) => `${form} → ${spanishStem(form)}`),
    forms.map((form) => `${form} → ${stem}`),
  );
}

describe('Spanish keyword text', () => {
  describe('spanishStem', () => {
    it('conflates the gender and number forms of a noun or adjective', () => {
      assertFamily('archiv', ['archivo', 'archivos']);
      assertFamily('tabl', ['tabla', 'tablas']);
      assertFamily('valor', ['valor', 'valores']);
      assertFamily('nuev', ['nuevo', 'nueva', 'nuevos', 'nuevas']);
      assertFamily('mes', ['mes', 'meses']);
      assertFamily('luz', ['luces']);
      assertFamily('vez', ['veces']);
      assertFamily('informacion', ['información', 'informacion']);
    });

    it('keeps derived words and verb forms apart, as Snowball does not', () => {
      const stems = new Set(['información', 'informar', 'informe'].map(spanishStem));
      assert.equal(stems.size, 3, [...stems].join(', '));
      assert.notEqual(spanishStem('guardar'), spanishStem('guardado'));
    });

    it('leaves words of fewer than five letters, and words ending otherwise, as they are', () => {
      for (const word of ['hoja', 'casa', 'días', 'más', 'papel', 'ciudad', 'ordenar', 'x11', '2024']) assert.equal(spanishStem(word), word);
      // Savoy's limit: a four-letter singular keeps its vowel where its plural loses it.
      assert.equal(spanishStem('hojas'), 'hoj');
      assert.equal(spanishStem('árbol'), 'arbol', 'accents go from a stemmed word');
    });
  });

  describe('SPANISH_STOP_WORDS', () => {
    it("is PostgreSQL's Spanish stop-word list: articles, prepositions, pronouns, auxiliaries", async () => {
      assert.equal(SPANISH_STOP_WORDS.size, 313);
      for (const word of ['de', 'la', 'los', 'para', 'con', 'también', 'estaba', 'hemos']) assert.ok(SPANISH_STOP_WORDS.has(word), word);
      for (const word of ['archivo', 'tabla', 'guardar']) assert.ok(!SPANISH_STOP_WORDS.has(word), word);
      const db = new PGlite();
      try {
        const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM unnest($1::text[]) AS w WHERE to_tsvector('spanish', w) = ''::tsvector", [[...SPANISH_STOP_WORDS]]);
        assert.equal(rows[0]?.n, SPANISH_STOP_WORDS.size, "every one is a stop word of PostgreSQL's 'spanish' configuration");
      } finally {
        await db.close();
      }
    });
  });

  describe('spanishKeywordText', () => {
    it('lower-cases, stems every word and drops the stop words, keeping the separators', () => {
      assert.equal(spanishKeywordText('Los Archivos de la tabla, en 2024.'), '  archiv     tabl,   2024.');
    });

    it("makes, of every token PostgreSQL's parser finds, the lexeme a query's word gets (spanishLexeme)", async () => {
      const db = new PGlite();
      try {
        const text = 'Guarde los archivos «informe-anual.txt» y las hojas de cálculo (una hoja-de-cálculo) en https://ejemplo.es/datos; las imágenes, en 3 carpetas.';
        const lexemesOf = async (t: string) =>
          (await db.query<{ w: string }>("SELECT w FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS w", [t])).rows.map((r) => r.w);
        const indexed = new Set(await lexemesOf(spanishKeywordText(text)));
        const queried = (await lexemesOf(text)).map(spanishLexeme).filter((l): l is string => l !== null);
        assert.ok(queried.length >= 12, queried.join(' '));
        for (const lexeme of queried) assert.ok(indexed.has(lexeme), `${lexeme} is not among ${[...indexed].join(' ')}`);
        const expected = ['archiv', 'hoj', 'calcul', 'imagen', 'carpet', 'inform-anual.txt', 'ejempl.es', 'hoja-de-calcul'];
        for (const lexeme of expected) assert.ok(indexed.has(lexeme), `${lexeme} is not among ${[...indexed].join(' ')}`);
        assert.ok(!indexed.has('los') && !indexed.has('las') && !indexed.has('en'), 'stop words standing alone are not indexed');
      } finally {
        await db.close();
      }
    });
  });
});
