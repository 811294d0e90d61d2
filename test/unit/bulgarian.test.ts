import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { BULGARIAN_STOP_WORDS, bulgarianKeywordText, bulgarianStem } from '../../core/search/bulgarian.js';

/** Asserts every form of a family stems to `stem`, naming the forms that do not. */
function assertFamily(stem: string, forms: string[]): void {
  const stems = forms.map((form) => `${form} → ${bulgarianStem(form)}`);
  assert.deepEqual(stems, forms.map((form) => `${form} → ${stem}`));
}

describe('Bulgarian keyword text', () => {
  describe('bulgarianStem', () => {
    it('conflates the article, plural and gender forms of a noun or adjective to one stem', () => {
      assertFamily('град', ['град', 'градът', 'града', 'градове', 'градовете']);
      assertFamily('книг', ['книга', 'книгата', 'книги', 'книгите']);
      assertFamily('учител', ['учител', 'учителят', 'учителя', 'учители', 'учителите']);
      assertFamily('нов', ['нов', 'нова', 'ново', 'нови', 'новата', 'новото', 'новите', 'новия', 'новият']);
      assertFamily('момч', ['момче', 'момчето', 'момчета', 'момчетата']);
      assertFamily('мъж', ['мъж', 'мъжът', 'мъжа', 'мъже', 'мъжете']);
      assertFamily('път', ['път', 'пътят', 'пътя', 'пътища', 'пътищата']);
      assertFamily('истор', ['история', 'историята', 'истории', 'историите']);
      assertFamily('българск', ['български', 'българския', 'българският', 'българска', 'българското']);
      // The -та of работа is the noun's own, not an article: работа is not cut to раб.
      assertFamily('работ', ['работа', 'работата', 'работи']);
    });

    it('undoes the alternations of the stem: к/ц, г/з, я/е and the unstable е and ъ', () => {
      assertFamily('ученик', ['ученик', 'ученикът', 'ученика', 'ученици', 'учениците']);
      assertFamily('педагог', ['педагог', 'педагога', 'педагози', 'педагозите']);
      assertFamily('страник', ['страница', 'страницата', 'страници', 'страниците']);
      assertFamily('голем', ['голям', 'голяма', 'голямото', 'големи', 'големите']);
      assertFamily('министр', ['министър', 'министъра', 'министри', 'министрите']);
      assertFamily('силн', ['силен', 'силна', 'силни', 'силните']);
      // -си is a plain -и plural, not Savoy's -си → -х: the -с nouns keep their stem.
      assertFamily('процес', ['процес', 'процесът', 'процеси', 'процесите']);
      // Savoy's -е?и → -я? would make these учитял, съсяд, проблям.
      assertFamily('съсед', ['съсед', 'съседа', 'съседи', 'съседите']);
      assertFamily('проблем', ['проблем', 'проблема', 'проблеми', 'проблемите']);
    });

    it('keeps different words apart', () => {
      const words = ['град', 'гора', 'учител', 'ученик', 'учебник', 'нов', 'нож', 'момче', 'момиче', 'книга', 'кино', 'път', 'пътник', 'министър', 'министерство', 'история', 'истина', 'работа', 'работник', 'море', 'мост'];
      const stems = words.map(bulgarianStem);
      assert.equal(new Set(stems).size, words.length, `two words share a stem: ${words.map((w, i) => `${w} → ${stems[i]}`).join(', ')}`);
    });

    it('does not over-stem short words', () => {
      for (const word of ['аз', 'ден', 'път', 'нов', 'око', 'ухо', 'две', 'лои', 'ям']) assert.equal(bulgarianStem(word), word, 'under 4 letters: unchanged');
      assert.equal(bulgarianStem('море'), 'мор');
      assert.equal(bulgarianStem('змия'), 'зми', 'ия would leave 2 letters: only the final я goes');
      assert.equal(bulgarianStem('змии'), 'зми');
      assert.equal(bulgarianStem('пият'), 'пиет', 'ят would leave 2 letters: not taken as an article');
      const words = ['дете', 'деца', 'тези', 'сила', 'боеве', 'овци', 'пътя', 'кино', 'нощта', 'мостът', 'ракия', 'очи', 'хора', 'хората'];
      for (const word of words) assert.ok(bulgarianStem(word).length >= 3, `${word} → ${bulgarianStem(word)}: shorter than 3 letters`);
    });

    it('returns Latin words, numbers and mixed words unchanged', () => {
      for (const word of ['server', 'databases', 'covid19', '2024', '1000', 'abc', 'тест1', '5ти', 'Градът', 'iphone', 'straße']) {
        assert.equal(bulgarianStem(word), word);
      }
    });
  });

  describe('BULGARIAN_STOP_WORDS', () => {
    it('lists 150 to 250 lower-case Bulgarian function words', () => {
      assert.ok(BULGARIAN_STOP_WORDS.size >= 150 && BULGARIAN_STOP_WORDS.size <= 250, `${BULGARIAN_STOP_WORDS.size} words`);
      for (const word of BULGARIAN_STOP_WORDS) assert.match(word, /^[\u0430-\u045f]+$/, `${word}: not lower-case Cyrillic`);
      for (const word of ['и', 'в', 'на', 'от', 'за', 'че', 'да', 'не', 'се', 'той', 'тя', 'това', 'които', 'съм', 'е', 'са', 'беше', 'бъде', 'ще', 'ли']) {
        assert.ok(BULGARIAN_STOP_WORDS.has(word), `${word} is missing`);
      }
      for (const word of ['град', 'книга', 'учител', 'закон', 'данни']) assert.ok(!BULGARIAN_STOP_WORDS.has(word), `${word} is not a function word`);
    });
  });

  describe('bulgarianKeywordText', () => {
    it('lower-cases, stems every word and drops the stop words, keeping the separators', () => {
      assert.equal(bulgarianKeywordText('Учителите в Новото училище.'), 'учител  нов учил.');
      assert.equal(bulgarianKeywordText('КНИГИТЕ И ГРАДОВЕТЕ'), 'книг  град');
      assert.equal(bulgarianKeywordText('Той е там, а тя не е.'), '  ,    .', 'stop words only: separators remain');
    });

    it('passes Latin words, numbers and ASCII punctuation through, lower-cased', () => {
      assert.equal(bulgarianKeywordText('Версия 1.5 на API: https://Example.com/Docs'), 'верс 1.5  api: https://example.com/docs');
      assert.equal(bulgarianKeywordText('COVID19, 2024г. и №5'), 'covid19, 2024г.   5', 'non-ASCII punctuation becomes a space');
    });

    it('turns quotes and dashes into spaces, so no database locale glues them to a word', () => {
      assert.equal(bulgarianKeywordText('„Книгата“ — «градът»'), ' книг     град ');
    });

    it("gives PostgreSQL's 'simple' configuration the stems as lexemes, split as its parser splits Cyrillic", async () => {
      const db = new PGlite();
      try {
        const text = 'Учителите в Северо-западна България четат 5-те нови книги — „Covid19 и ИИ“ (2024г., стр. 1.5); училищата са 12 на брой!';
        const { rows } = await db.query<{ lexemes: string[] }>(
          "SELECT array_agg(lexeme ORDER BY lexeme) AS lexemes FROM unnest(to_tsvector('simple', $1))",
          [bulgarianKeywordText(text)],
        );
        const expected = ['1.5', '12', '2024г', '5', 'covid19', 'брой', 'българ', 'западн', 'ии', 'книг', 'нов', 'север', 'север-западн', 'стр', 'учил', 'учител', 'четат'];
        assert.deepEqual([...(rows[0]?.lexemes ?? [])].sort(), [...expected].sort(), 'a hyphenated word is indexed whole and by its parts, each stemmed');
      } finally {
        await db.close();
      }
    });
  });
});
