/**
 * Bulgarian keyword text: a light stemmer and a stop-word list.
 *
 * PostgreSQL ships no Bulgarian text-search configuration, so Bulgarian chunks are indexed with
 * 'simple', which only lower-cases: "градът", "града", "градове" and "градовете" are four words to
 * it, and a query for "град" finds none of them. This module turns a Bulgarian text into the words
 * keyword search should see — each word replaced by its stem, function words dropped — so that
 * `to_tsvector('simple', bulgarianKeywordText(text))` holds stems, and a query prepared the same way
 * matches every inflected form.
 *
 * The stemmer is a *light* stemmer in the manner of J. Savoy's stemmer for Bulgarian ("Searching
 * strategies for the Bulgarian language", Information Retrieval 10, 2007), the one IR systems use
 * for the language. Bulgarian nouns and adjectives have lost their cases; what varies is gender,
 * number and the definite article, which is a suffix (град → градът, книга → книгата, нов →
 * новото). A light stemmer strips exactly those endings — article, then plural or gender ending,
 * then a final vowel — and so conflates the forms of a noun or adjective, which is what retrieval
 * needs; it does not try to reduce derived words to a common root (учител and учение stay apart),
 * and verbs, whose many person, tense and aspect forms would need a dictionary to undo, are left
 * mostly as they are (a final vowel or a plural-looking -и or -ят may go). Its steps, on one lower-cased Cyrillic word:
 *
 *  0. Words of fewer than 4 letters are returned as they are; no step leaves fewer than 3 letters.
 *  1. Definite article: -ят, -ът (leaving 3 or more letters: пътят, мъжът), then -те, -то, -та
 *     (leaving 4 or more: книгите, новото, книгата). -та is not taken after о, у, ю or и, where it is
 *     the noun's own ending (работа, минута, квота, орбита), not an article. Savoy's -ия and -ият
 *     are handled as -и + я / ят: -ят goes here and -ия in step 2, so that the adjective (новия,
 *     новият → нов) and the -ия nouns (история, историята, истории → истор) each meet one stem.
 *  2. Plural and gender endings, the first that applies: -овци → -о (дядовци → дядо), -ища
 *     (пътища → път), -ище (училище, whose plural is училища), -ове (градове), -еве (кралеве;
 *     боеве → бой, restoring the й of a vowel-final stem), -та of neuter plurals (момчетата →
 *     момчета → момче; leaving 4 or more letters, not after о, у, ю, и), -ия and -ии (история,
 *     истории, новия), then -и (книги, нови, учители).
 *  3. A final vowel: -я, then one of -а, -о, -е (града, учителя, книга, нова, момче).
 *  4. Savoy's rewritings of an unstable vowel: a stem ending in -ен loses the е (силен, силна →
 *     силн), and a stem of 5 or more letters ending in ъ + consonant loses the ъ (министър,
 *     министри → министр; добър, добра → добр).
 *  5. Consonant and vowel alternations, normalised at the end of the stem, so both sides meet:
 *     -ц → -к and -з → -г (ученик/ученици → ученик, педагог/педагози → педагог), and я → е
 *     before a final consonant (голям/големи → голем, свят/светове → свет). Savoy rewrites only
 *     the plural (-ци → -к, -зи → -г, -е?и → -я?); doing it on every stem also conflates the
 *     feminine -ица nouns with their plurals (страница/страници), which his rule splits, and
 *     it does not turn учители into учитял, съседи into съсяд or проблеми into проблям, which
 *     his -е?и rule does. His -си → -х is left out: in today's Bulgarian -х nouns pluralise in
 *     -хи (успехи), and the rule would break the many -с nouns (процеси → процех, курси, адреси).
 *
 * Like every light stemmer it errs both ways at the margins: a word ending like an article is
 * cut (ракета → рак: nouns in -ета look like neuter plurals such as момчета), and some
 * alternations are not undone (първенец/първенци). For retrieval that is the right trade: the
 * common inflections of nouns and adjectives meet, and the rules are few and predictable.
 */

/** Shorter words are returned unchanged. */
const MIN_WORD = 4;
/** No rule leaves a stem shorter than this. */
const MIN_STEM = 3;

/** Letters after which a final -та is the noun's own ending (работа, минута), not an article. */
const NOT_BEFORE_TA = 'оуюи';

/** Lower-case Cyrillic (а-я, ѐ-џ, which holds ѝ): the only words the stemmer touches. */
function isCyrillicLower(code: number): boolean {
  return code >= 0x430 && code <= 0x45f;
}

// Letter codes, named by transliteration.
const codeOf = (letter: string): number => letter.charCodeAt(0);
const A = codeOf('а'), V = codeOf('в'), E = codeOf('е'), Z = codeOf('з'), I = codeOf('и'), N = codeOf('н'), O = codeOf('о'), T = codeOf('т'),
  TS = codeOf('ц'), SHT = codeOf('щ'), ER = codeOf('ъ'), YA = codeOf('я');

const VOWELS: readonly number[] = [...'аеиоуъюя'].map(codeOf);

function isVowel(c: number): boolean {
  return VOWELS.includes(c);
}

// The rules read the last letters as character codes (c1 the last, c2 the one before, ...) and
// slice once, at the end of a step: this runs on every word of every Bulgarian chunk, and a
// chain of endsWith calls or of sliced suffixes costs several times as much.

/** -та may go from a word of `n` letters, leaving 4 or more, when the letter before is not о, у, ю, и. */
function mayStripTa(w: string, n: number): boolean {
  return n - 2 >= 4 && !NOT_BEFORE_TA.includes(w.charAt(n - 3));
}

/** Step 1: one definite article. */
function removeArticle(w: string): string {
  const n = w.length;
  const c1 = w.charCodeAt(n - 1), c2 = w.charCodeAt(n - 2);
  if (c1 === T && (c2 === YA || c2 === ER) && n - 2 >= MIN_STEM) return w.slice(0, -2); // градът, учителят, новият
  if (c2 === T && (c1 === E || c1 === O) && n - 2 >= 4) return w.slice(0, -2); // книгите, новото
  if (c2 === T && c1 === A && mayStripTa(w, n)) return w.slice(0, -2); // книгата, нощта
  return w;
}

/** Step 2: one plural or gender ending. */
function removeInflection(w: string): string {
  const n = w.length;
  const c1 = w.charCodeAt(n - 1), c2 = w.charCodeAt(n - 2), c3 = w.charCodeAt(n - 3);
  if (c1 === I && c2 === TS && c3 === V && w.charCodeAt(n - 4) === O && n - 4 >= MIN_STEM) return w.slice(0, -3); // дядовци → дядо
  if (n - 3 >= MIN_STEM && ((c3 === I && c2 === SHT && (c1 === A || c1 === E)) || (c3 === O && c2 === V && c1 === E))) {
    return w.slice(0, -3); // пътища, училище, градове
  }
  if (c3 === E && c2 === V && c1 === E) {
    // кралеве → крал; боеве → бой: the й of a stem ending in a vowel comes back
    if (isVowel(w.charCodeAt(n - 4))) {
      if (n - 2 >= MIN_STEM) return `${w.slice(0, -3)}й`;
    } else if (n - 3 >= MIN_STEM) {
      return w.slice(0, -3);
    }
  }
  if (c2 === T && c1 === A && mayStripTa(w, n)) return w.slice(0, -2); // момчета
  if (c2 === I && (c1 === YA || c1 === I) && n - 2 >= MIN_STEM) return w.slice(0, -2); // история, истории, новия
  if (c1 === I && n - 1 >= MIN_STEM) return w.slice(0, -1); // книги, нови, учители
  return w;
}

/** Step 3: a final -я, then a final -а, -о or -е. */
function removeFinalVowel(w: string): string {
  let n = w.length;
  if (w.charCodeAt(n - 1) === YA && n - 1 >= MIN_STEM) n--;
  const c1 = w.charCodeAt(n - 1);
  if ((c1 === A || c1 === O || c1 === E) && n - 1 >= MIN_STEM) n--;
  return n === w.length ? w : w.slice(0, n);
}

/** Steps 4 and 5: the unstable е and ъ, then the alternations at the end of the stem. */
function normaliseEnding(w: string): string {
  let s = w;
  let n = s.length;
  if (n > 4 && s.charCodeAt(n - 1) === N && s.charCodeAt(n - 2) === E) s = `${s.slice(0, -2)}н`; // силен → силн
  n = s.length;
  const c1 = s.charCodeAt(n - 1);
  if (n > 4 && s.charCodeAt(n - 2) === ER && !isVowel(c1)) s = s.slice(0, -2) + s.charAt(n - 1); // министър → министр
  n = s.length;
  if (n < 4) return s;
  if (c1 === TS) return `${s.slice(0, -1)}к`; // ученици → учениц → ученик
  if (c1 === Z) return `${s.slice(0, -1)}г`; // педагози → педагоз → педагог
  if (s.charCodeAt(n - 2) === YA && !isVowel(c1)) return `${s.slice(0, -2)}е${s.charAt(n - 1)}`; // голям → голем
  return s;
}

/**
 * The stem of one lower-cased Bulgarian word (see the module comment for the rules). A word with
 * anything but lower-case Cyrillic letters, or of fewer than 4 letters, is returned unchanged.
 */
export function bulgarianStem(word: string): string {
  if (word.length < MIN_WORD) return word;
  for (let i = 0; i < word.length; i++) if (!isCyrillicLower(word.charCodeAt(i))) return word;
  return normaliseEnding(removeFinalVowel(removeInflection(removeArticle(word))));
}

/**
 * Bulgarian function words, lower-case: personal, possessive, demonstrative, interrogative,
 * relative and indefinite pronouns, prepositions, conjunctions, particles, the indefinite
 * article, the forms of 'съм' (to be) and a few auxiliary and very common adverbs. They carry no
 * topic, so keyword search indexes none of them.
 */
export const BULGARIAN_STOP_WORDS: ReadonlySet<string> = new Set([
  // personal pronouns, full and clitic forms, and the reflexive
  'аз', 'ти', 'той', 'тя', 'то', 'ние', 'вие', 'те', 'мен', 'мене', 'теб', 'тебе', 'него', 'нея', 'нас', 'вас', 'тях',
  'ме', 'го', 'я', 'ни', 'ви', 'ги', 'ми', 'му', 'ѝ', 'им', 'си', 'се', 'себе',
  // possessives, the forms of each gender and the plural
  'мой', 'моя', 'мое', 'мои', 'твой', 'твоя', 'твое', 'твои', 'свой', 'своя', 'свое', 'свои',
  'негов', 'негова', 'негово', 'негови', 'неин', 'нейна', 'нейно', 'нейни', 'наш', 'наша', 'наше', 'наши',
  'ваш', 'ваша', 'ваше', 'ваши', 'техен', 'тяхна', 'тяхно', 'техни',
  // demonstratives
  'този', 'тази', 'това', 'тези', 'онзи', 'онази', 'онова', 'онези', 'такъв', 'такава', 'такова', 'такива',
  // interrogatives and relatives
  'кой', 'коя', 'кое', 'кои', 'който', 'която', 'което', 'които', 'какъв', 'каква', 'какво', 'какви',
  'какъвто', 'каквато', 'каквото', 'каквито', 'чий', 'чия', 'чие', 'чии', 'чийто', 'чиято', 'чието', 'чиито',
  'къде', 'където', 'кога', 'когато', 'как', 'както', 'защо', 'колко', 'колкото', 'откъде', 'откъдето', 'накъде',
  // indefinite, negative and universal pronouns
  'някой', 'някоя', 'някое', 'някои', 'нещо', 'някъде', 'някога', 'някак', 'никой', 'никоя', 'никое', 'никои',
  'нищо', 'никъде', 'никога', 'всеки', 'всяка', 'всяко', 'всички', 'всичко', 'друг', 'друга', 'друго', 'други',
  // the indefinite article (the numeral 'one')
  'един', 'една', 'едно', 'едни',
  // prepositions
  'в', 'във', 'на', 'по', 'от', 'за', 'с', 'със', 'до', 'при', 'към', 'след', 'пред', 'преди', 'през', 'без', 'между',
  'под', 'над', 'около', 'срещу', 'чрез', 'според', 'освен', 'покрай', 'из', 'сред', 'заради', 'въпреки',
  'относно', 'спрямо', 'зад', 'у', 'вместо',
  // conjunctions
  'и', 'а', 'но', 'или', 'ако', 'че', 'да', 'дали', 'защото', 'понеже', 'обаче', 'нито', 'като', 'та', 'пък',
  'макар', 'иначе', 'щом', 'сякаш', 'затова', 'докато', 'тоест', 'ами',
  // particles and auxiliaries
  'не', 'ли', 'ще', 'нека', 'ето', 'нали', 'дори', 'даже',
  // 'съм' (to be), 'бъда' and the conditional 'бих'
  'съм', 'е', 'сме', 'сте', 'са', 'бях', 'беше', 'бе', 'бяхме', 'бяхте', 'бяха', 'бил', 'била', 'било', 'били',
  'бъда', 'бъдеш', 'бъде', 'бъдем', 'бъдете', 'бъдат', 'бих', 'би', 'бихме', 'бихте', 'биха',
  // 'има', 'няма' (there is, there is not) and common adverbs of degree, time and place
  'има', 'няма', 'много', 'малко', 'повече', 'най', 'също', 'така', 'толкова', 'тогава', 'сега', 'вече',
  'още', 'пак', 'само', 'почти', 'доста', 'твърде', 'тук', 'там', 'все',
]);

/**
 * Words are what PostgreSQL's default parser reads in Cyrillic text: runs of letters and decimal
 * digits. Any other non-ASCII character (quotes „“«», dashes, №, ², combining marks) becomes a
 * space, since under a C locale PostgreSQL counts every non-ASCII character as a letter and would
 * glue it to the word; ASCII punctuation is kept as it is, so numbers (1.5), hyphenated words and
 * addresses reach PostgreSQL's parser unchanged.
 *
 * For speed the one pass over the text uses small character classes, not \p{L}, whose hundreds
 * of ranges make a regular expression several times slower. RUN matches either a run of ASCII
 * letters and digits and of non-ASCII characters outside the Latin-1 symbols and the General
 * Punctuation block, or one character of those two (nearly all of them punctuation: „ “ — « »).
 * A run of ASCII and lower-case Cyrillic letters only, nearly every run, is a word as it stands;
 * only a run holding some other character is split again by Unicode letter class.
 */
const RUN = /[0-9a-z\u00c0-\u1fff\u2070-\uffff]+|[\u0080-\u00bf\u2000-\u206f]/g;
const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;
const WORD_OR_OTHER = /([\p{L}\p{Nd}]+)|[^\p{L}\p{Nd}]/gu;

/** Longer words are not looked up in the stop list (hashing every long word costs time). */
const LONGEST_STOP_WORD = Math.max(...[...BULGARIAN_STOP_WORDS].map((w) => w.length));

function keywordWord(word: string): string {
  return word.length <= LONGEST_STOP_WORD && BULGARIAN_STOP_WORDS.has(word) ? '' : bulgarianStem(word);
}

function keywordPart(_match: string, word: string | undefined): string {
  return word === undefined ? ' ' : keywordWord(word);
}

/** A run of ASCII letters, digits and lower-case Cyrillic only: one word as it stands. */
function isPlainWord(run: string): boolean {
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (!(isCyrillicLower(c) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return false;
  }
  return true;
}

function keywordRun(run: string): string {
  if (isPlainWord(run)) return keywordWord(run);
  const c = run.charCodeAt(0);
  if (run.length === 1 && (c <= 0xbf || (c >= 0x2000 && c <= 0x206f))) return LETTER_OR_DIGIT.test(run) ? run : ' ';
  return run.replace(WORD_OR_OTHER, keywordPart);
}

/**
 * What keyword search indexes (and queries with) for a Bulgarian text: the text lower-cased, each
 * word replaced by its stem, stop words dropped, everything else kept as a separator. Feed the
 * result to `to_tsvector('simple', …)` (or `plainto_tsquery('simple', …)`) to get the stems as
 * lexemes. One regular-expression pass; a 1000-character chunk takes some tens of microseconds.
 */
export function bulgarianKeywordText(text: string): string {
  return text.toLowerCase().replace(RUN, keywordRun);
}
