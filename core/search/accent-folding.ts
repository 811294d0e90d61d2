/**
 * Accent folding for keyword search: Latin letters lose their diacritics ("información" →
 * "informacion", "élément" → "element", "perché" → "perche"), and the ligatures œ and æ become
 * two letters ("cœur" → "coeur"). Letters of other scripts keep theirs: the breve of the
 * Bulgarian й and the diaeresis of ё are part of the letter, not an accent.
 */

/** A Latin base letter followed by its combining marks (in the canonical decomposition). */
const LATIN_WITH_MARKS = /([A-Za-z])[\u0300-\u036f]+/g;
const LIGATURES = /[œŒæÆ]/g;
const LIGATURE_LETTERS: Record<string, string> = { œ: 'oe', Œ: 'OE', æ: 'ae', Æ: 'AE' };
/** Text that holds no character a fold changes (most of it, in English) is returned as it is. */
const ASCII_ONLY = /^[\p{ASCII}]*$/u;

/** The text with its Latin letters' diacritics removed and œ, æ spelt out. */
export function foldAccents(text: string): string {
  if (ASCII_ONLY.test(text)) return text;
  return text
    .normalize('NFD')
    .replace(LATIN_WITH_MARKS, '$1')
    .normalize('NFC')
    .replace(LIGATURES, (l) => LIGATURE_LETTERS[l] ?? l);
}

const WORD = /[\p{L}\p{M}]+/gu;

/** The words of a text that folding changes, and the same words folded: aligned lists, every occurrence in order. */
export interface FoldedWords {
  words: string[];
  folded: string[];
}

/** The words of the text that folding changes ("información"), each with its folded spelling ("informacion"). */
export function foldedWords(text: string): FoldedWords {
  const out: FoldedWords = { words: [], folded: [] };
  if (ASCII_ONLY.test(text)) return out;
  // Folding keeps every letter a letter, so the folded text's words are the text's, in order
  // (one pass over the text; folding word by word, should that ever not hold).
  const words = text.match(WORD) ?? [];
  const whole = foldAccents(text).match(WORD) ?? [];
  const folded = whole.length === words.length ? whole : words.map(foldAccents);
  words.forEach((word, i) => {
    if (folded[i] === word) return;
    out.words.push(word);
    out.folded.push(folded[i]!);
  });
  return out;
}

/**
 * A query's text followed by the folded spellings of its words that folding changes, and the
 * spellings so added that the text does not hold itself (lower-cased, as PostgreSQL's 'simple'
 * makes them): each is another spelling of a query word, not a word of its own.
 */
export function withFoldedWords(text: string): { text: string; added: Set<string> } {
  const { folded } = foldedWords(text);
  if (!folded.length) return { text, added: new Set() };
  const typed = new Set((text.match(WORD) ?? []).map((w) => w.toLowerCase()));
  return { text: `${text}\n${folded.join(' ')}`, added: new Set(folded.map((w) => w.toLowerCase()).filter((w) => !typed.has(w))) };
}
