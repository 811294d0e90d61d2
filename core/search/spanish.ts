/**
 * Spanish keyword text: a light stemmer, and the stop words PostgreSQL's 'spanish' configuration
 * drops.
 *
 * PostgreSQL's 'spanish' configuration stems with Snowball's Spanish stemmer, which removes
 * derivational and verbal suffixes as well as inflection ("información" and "informar" both become
 * 'inform'; "guardar", "guardado" and "guarda" 'guard'), so words a query means apart meet. Measured on
 * three collections (docs/retrieval-quality.md, "Spanish light stemming"), a light stemmer after J.
 * Savoy's for Spanish (from his CLEF 2001 experiments; Lucene's SpanishLightStemmer follows it
 * too), which undoes only gender and number, ranked better: so Spanish chunks are indexed
 * with `to_tsvector('simple', spanishKeywordText(text))` and a query's words with the same
 * analysis (spanishLexeme), as Bulgarian's are (core/search/bulgarian.ts).
 *
 * The stemmer, on one lower-cased word of 5 letters or more (shorter words are returned as they
 * are): its vowels' accents are removed (á é í ó ú, and à â ä and the like, become a e i o u),
 * then
 *  - a final -o, -a or -e goes (archivo, archiva → archiv; nombre → nombr);
 *  - else a final -s: -eses loses -es (meses, intereses → mes, interes), -ces becomes -z (luces,
 *    veces → luz, vez), and -os, -as, -es lose both letters (archivos, tablas, valores → archiv,
 *    tabl, valor);
 *  - anything else stays (papel, ordenar, ciudad).
 * Verbs keep their forms apart (guardar, guarda → guardar, guard): conflating them would need the
 * heavier suffix stripping that this stemmer leaves out on purpose.
 */

/** Shorter words are returned unchanged. */
const MIN_WORD = 5;

/** The vowels' accents only: not foldAccents (core/search/accent-folding.ts), which would also make ñ an n. */
const UNACCENTED: Readonly<Record<string, string>> = {
  á: 'a', à: 'a', â: 'a', ä: 'a', é: 'e', è: 'e', ê: 'e', ë: 'e', í: 'i', ì: 'i', î: 'i', ï: 'i',
  ó: 'o', ò: 'o', ô: 'o', ö: 'o', ú: 'u', ù: 'u', û: 'u', ü: 'u',
};
const ACCENTED = /[áàâäéèêëíìîïóòôöúùûü]/g;

/** The light stem of one lower-cased Spanish word. */
export function spanishStem(word: string): string {
  if (word.length < MIN_WORD) return word;
  const w = word.replace(ACCENTED, (c) => UNACCENTED[c]!);
  const last = w[w.length - 1];
  if (last === 'o' || last === 'a' || last === 'e') return w.slice(0, -1);
  if (last !== 's') return w;
  if (w.endsWith('eses')) return w.slice(0, -2);
  if (w.endsWith('ces')) return `${w.slice(0, -3)}z`;
  const before = w[w.length - 2];
  return before === 'o' || before === 'a' || before === 'e' ? w.slice(0, -2) : w;
}

/**
 * The words PostgreSQL's 'spanish' configuration drops (its `spanish.stop`, which is Snowball's
 * Spanish stop-word list, BSD-licensed): articles, prepositions, pronouns and the forms of "estar",
 * "haber", "ser" and "tener". Kept as they were, so that the light stemmer changes stemming only.
 */
export const SPANISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'de', 'la', 'que', 'el', 'en', 'y', 'a', 'los', 'del', 'se', 'las', 'por', 'un', 'para', 'con', 'no',
  'una', 'su', 'al', 'lo', 'como', 'más', 'pero', 'sus', 'le', 'ya', 'o', 'este', 'sí', 'porque', 'esta',
  'entre', 'cuando', 'muy', 'sin', 'sobre', 'también', 'me', 'hasta', 'hay', 'donde', 'quien', 'desde',
  'todo', 'nos', 'durante', 'todos', 'uno', 'les', 'ni', 'contra', 'otros', 'ese', 'eso', 'ante', 'ellos',
  'e', 'esto', 'mí', 'antes', 'algunos', 'qué', 'unos', 'yo', 'otro', 'otras', 'otra', 'él', 'tanto', 'esa',
  'estos', 'mucho', 'quienes', 'nada', 'muchos', 'cual', 'poco', 'ella', 'estar', 'estas', 'algunas', 'algo',
  'nosotros', 'mi', 'mis', 'tú', 'te', 'ti', 'tu', 'tus', 'ellas', 'nosotras', 'vosostros', 'vosostras',
  'os', 'mío', 'mía', 'míos', 'mías', 'tuyo', 'tuya', 'tuyos', 'tuyas', 'suyo', 'suya', 'suyos', 'suyas',
  'nuestro', 'nuestra', 'nuestros', 'nuestras', 'vuestro', 'vuestra', 'vuestros', 'vuestras', 'esos', 'esas',
  'estoy', 'estás', 'está', 'estamos', 'estáis', 'están', 'esté', 'estés', 'estemos', 'estéis', 'estén',
  'estaré', 'estarás', 'estará', 'estaremos', 'estaréis', 'estarán', 'estaría', 'estarías', 'estaríamos',
  'estaríais', 'estarían', 'estaba', 'estabas', 'estábamos', 'estabais', 'estaban', 'estuve', 'estuviste',
  'estuvo', 'estuvimos', 'estuvisteis', 'estuvieron', 'estuviera', 'estuvieras', 'estuviéramos',
  'estuvierais', 'estuvieran', 'estuviese', 'estuvieses', 'estuviésemos', 'estuvieseis', 'estuviesen',
  'estando', 'estado', 'estada', 'estados', 'estadas', 'estad', 'he', 'has', 'ha', 'hemos', 'habéis', 'han',
  'haya', 'hayas', 'hayamos', 'hayáis', 'hayan', 'habré', 'habrás', 'habrá', 'habremos', 'habréis', 'habrán',
  'habría', 'habrías', 'habríamos', 'habríais', 'habrían', 'había', 'habías', 'habíamos', 'habíais',
  'habían', 'hube', 'hubiste', 'hubo', 'hubimos', 'hubisteis', 'hubieron', 'hubiera', 'hubieras',
  'hubiéramos', 'hubierais', 'hubieran', 'hubiese', 'hubieses', 'hubiésemos', 'hubieseis', 'hubiesen',
  'habiendo', 'habido', 'habida', 'habidos', 'habidas', 'soy', 'eres', 'es', 'somos', 'sois', 'son', 'sea',
  'seas', 'seamos', 'seáis', 'sean', 'seré', 'serás', 'será', 'seremos', 'seréis', 'serán', 'sería',
  'serías', 'seríamos', 'seríais', 'serían', 'era', 'eras', 'éramos', 'erais', 'eran', 'fui', 'fuiste',
  'fue', 'fuimos', 'fuisteis', 'fueron', 'fuera', 'fueras', 'fuéramos', 'fuerais', 'fueran', 'fuese',
  'fueses', 'fuésemos', 'fueseis', 'fuesen', 'sintiendo', 'sentido', 'sentida', 'sentidos', 'sentidas',
  'siente', 'sentid', 'tengo', 'tienes', 'tiene', 'tenemos', 'tenéis', 'tienen', 'tenga', 'tengas',
  'tengamos', 'tengáis', 'tengan', 'tendré', 'tendrás', 'tendrá', 'tendremos', 'tendréis', 'tendrán',
  'tendría', 'tendrías', 'tendríamos', 'tendríais', 'tendrían', 'tenía', 'tenías', 'teníamos', 'teníais',
  'tenían', 'tuve', 'tuviste', 'tuvo', 'tuvimos', 'tuvisteis', 'tuvieron', 'tuviera', 'tuvieras',
  'tuviéramos', 'tuvierais', 'tuvieran', 'tuviese', 'tuvieses', 'tuviésemos', 'tuvieseis', 'tuviesen',
  'teniendo', 'tenido', 'tenida', 'tenidos', 'tenidas', 'tened',
]);

const WORD = /[\p{L}\p{M}\p{Nd}]+/gu;
const WORD_CHARACTER = /[\p{L}\p{M}\p{Nd}]/u;
const JOINERS = './@_:-';

/**
 * Whether the word at [start, end) is joined to another by a dot, slash, at sign, underscore, colon
 * or hyphen ('ejemplo.es', 'hoja-de-cálculo'): PostgreSQL's parser reads such a run as one token (a
 * host, a path, a hyphenated word), so dropping a stop word in it would split the token.
 */
function joined(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  return (
    (before !== undefined && JOINERS.includes(before) && WORD_CHARACTER.test(text[start - 2] ?? '')) ||
    (after !== undefined && JOINERS.includes(after) && WORD_CHARACTER.test(text[end + 1] ?? ''))
  );
}

/**
 * What keyword search indexes for a Spanish text: the text lower-cased, each word replaced by its
 * stem, stop words dropped (but where joined to another word), everything else kept. Feed it to
 * `to_tsvector('simple', …)`.
 */
export function spanishKeywordText(text: string): string {
  const lower = text.toLowerCase();
  return lower.replace(WORD, (word, offset: number) =>
    SPANISH_STOP_WORDS.has(word) && !joined(lower, offset, offset + word.length) ? ' ' : spanishStem(word),
  );
}

/**
 * The lexeme the analysis makes of one query word as PostgreSQL's 'simple' parser gives it (a
 * word, or a token such as 'informe.txt' or 'hoja-de-cálculo' whose words are stemmed as a chunk's
 * text has them), or null for a stop word.
 */
export function spanishLexeme(token: string): string | null {
  const lexeme = spanishKeywordText(token);
  return /^\S+$/.test(lexeme) ? lexeme : null;
}
