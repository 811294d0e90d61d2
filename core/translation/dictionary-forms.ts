import type { Language } from './translation.schema.js';

/**
 * Endings a word may carry that a dictionary's headword does not (plurals, the commonest
 * inflections), each with what takes its place: tried in order when a word is not a headword as it
 * is, and the first form a dictionary has wins ("tabellen": "tabel", "présentations":
 * "présentation", "presentazioni": "presentazione", "libraries": "library").
 */
const ENDINGS: Record<Language, ReadonlyArray<readonly [string, string]>> = {
  en: [['s', ''], ['es', ''], ['ies', 'y']],
  de: [['en', ''], ['n', ''], ['e', ''], ['s', ''], ['er', ''], ['es', ''], ['ern', '']],
  nl: [['en', ''], ["'s", ''], ['s', ''], ['n', ''], ['e', '']],
  fr: [['s', ''], ['x', ''], ['aux', 'al']],
  es: [['s', ''], ['es', ''], ['ones', 'ón'], ['ces', 'z']],
  it: [['i', 'o'], ['i', 'e'], ['e', 'a'], ['chi', 'co'], ['ghi', 'go']],
  ro: [['uri', ''], ['i', ''], ['e', 'ă'], ['le', '']],
  bg: [['ове', ''], ['еве', ''], ['и', ''], ['та', ''], ['ът', ''], ['ят', ''], ['то', '']],
};

/**
 * The forms to look a word up as, in order: the word, then the word without each ending of its
 * language it carries (the ending's replacement put on), a stem that ends in a doubled consonant
 * also with one ("tabell": "tabel"). A stem keeps at least three letters.
 */
export function dictionaryForms(word: string, language: Language): string[] {
  const forms = [word];
  for (const [ending, replacement] of ENDINGS[language]) {
    if (word.length <= ending.length + 2 || !word.endsWith(ending)) continue;
    const stem = word.slice(0, -ending.length);
    forms.push(stem + replacement);
    if (!replacement && /([^aeiou])\1$/.test(stem)) forms.push(stem.slice(0, -1));
  }
  return [...new Set(forms)];
}
