import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { BilingualDictionary, LanguagePair, WordTranslations } from '../ports/translator.js';
import { pairKey } from '../ports/translator.js';
import { dictionaryForms } from '../translation/dictionary-forms.js';
import { type Language, SUPPORTED_LANGUAGES as LANGUAGES } from '../translation/translation.schema.js';
import { type LanguageVocabularies, vocabularyWords } from '../translation/vocabulary-language-detector.js';

/** Where the dictionaries Lore ships are: the repository's dictionaries/catalogues (`npm run build` copies it into dist/). */
export const CATALOGUE_DICTIONARY_DIR = path.resolve(import.meta.dirname, '../../dictionaries/catalogues');

/**
 * The words of a user-interface string or a query, as the catalogue dictionaries key them:
 * runs of letters of two or more, lower-cased, once printf conversions (`%s`, `%1$d`), markup
 * (`<b>`) and keyboard accelerators (`_Save`, `&Open`) are taken out.
 */
export function catalogueWords(text: string): string[] {
  const plain = text
    .replace(/%(?:\d+\$)?[-+ #0']*\d*(?:\.\d+)?(?:hh|h|ll|l|L|z|j|t)?[a-zA-Z%]|%\([a-z_]+\)[a-z]|\{\d*\}|<[^>]*>/g, ' ')
    .replace(/[&_](?=\p{L})/gu, '');
  return vocabularyWords(plain);
}

/** Vocabularies read, by directory: one copy however many dictionaries of a directory a process makes (the runtime's translator and detector, a bench's). */
const VOCABULARIES = new Map<string, Promise<LanguageVocabularies>>();

/**
 * Bilingual dictionaries of software vocabulary, built offline from the translations Debian's
 * packages ship for their user interfaces (gettext catalogues, /usr/share/locale): each pair's
 * catalogues aligned string by string and words aligned by IBM Model 1
 * (scripts/build-catalogue-dictionaries.ts; the data and its manifest: dictionaries/catalogues/).
 * They know what a manual's words mean in software — "Enregistrer" is "Guardar", "police" is
 * "tipografía" — where a general dictionary gives "registrar" and "policía". A file per ordered
 * pair, `<source>-<target>.tsv.gz`: a word, a tab, its translations (most likely first) separated
 * by tabs. A pair is read on its first look-up (~0.1–0.3 MB).
 */
export class CatalogueDictionary implements BilingualDictionary {
  readonly name = 'catalogues';
  private readonly dir: string;
  private readonly loaded = new Map<string, Promise<Map<string, string[]>>>();
  private files: Promise<ReadonlySet<string>> | undefined;

  constructor(options: { dir?: string } = {}) {
    this.dir = options.dir ?? CATALOGUE_DICTIONARY_DIR;
  }

  /** The pairs among the supported languages whose file is in the directory (none when it is missing), read once. */
  pairs(): Promise<ReadonlySet<string>> {
    this.files ??= readdir(this.dir).then(
      (names) => {
        const found = new Set<string>();
        for (const source of LANGUAGES) {
          for (const target of LANGUAGES) {
            if (source !== target && names.includes(catalogueFile({ source, target }))) found.add(pairKey({ source, target }));
          }
        }
        return found;
      },
      () => new Set<string>(),
    );
    return this.files;
  }

  /**
   * Each text's words (catalogueWords) with the translations of the first of their forms the
   * dictionary has (dictionaryForms: "présentations" as "présentation"), a word it does not know
   * as its only translation.
   */
  async lookUp(texts: string[], pair: LanguagePair): Promise<WordTranslations[][]> {
    const dictionary = await this.dictionary(pair);
    const translate = (word: string): string[] => {
      for (const form of dictionaryForms(word, pair.source)) {
        const found = dictionary.get(form);
        if (found) return found;
      }
      return [word];
    };
    return texts.map((text) => catalogueWords(text).map((word) => ({ word, translations: translate(word) })));
  }

  /**
   * Each language's headwords over all its pairs (~6,600–11,700 words a language), for telling a
   * short text's language (VocabularyLanguageDetector). Reads every pair's file the first time
   * (~0.2 s), then answers from a copy shared by every dictionary of the same directory.
   */
  vocabularies(): Promise<LanguageVocabularies> {
    let vocabularies = VOCABULARIES.get(this.dir);
    if (!vocabularies) {
      vocabularies = this.readVocabularies();
      vocabularies.catch(() => VOCABULARIES.delete(this.dir));
      VOCABULARIES.set(this.dir, vocabularies);
    }
    return vocabularies;
  }

  private async readVocabularies(): Promise<LanguageVocabularies> {
    const pairs = await this.pairs();
    const vocabularies = new Map<Language, Set<string>>();
    for (const source of LANGUAGES) {
      const words = new Set<string>();
      for (const target of LANGUAGES) {
        if (!pairs.has(pairKey({ source, target }))) continue;
        // Only the headwords: the translations are kept when a pair is looked up.
        for (const line of (await this.pairText({ source, target })).split('\n')) {
          const tab = line.indexOf('\t');
          if (tab > 0) words.add(line.slice(0, tab));
        }
      }
      if (words.size) vocabularies.set(source, words);
    }
    return vocabularies;
  }

  /** A pair's file, unzipped. */
  private async pairText(pair: LanguagePair): Promise<string> {
    return gunzipSync(await readFile(path.join(this.dir, catalogueFile(pair)))).toString('utf8');
  }

  private dictionary(pair: LanguagePair): Promise<Map<string, string[]>> {
    const key = pairKey(pair);
    let dictionary = this.loaded.get(key);
    if (!dictionary) {
      dictionary = this.pairText(pair).then(parseCatalogueDictionary);
      dictionary.catch(() => this.loaded.delete(key));
      this.loaded.set(key, dictionary);
    }
    return dictionary;
  }
}

/** A pair's file name (what scripts/build-catalogue-dictionaries.ts writes). */
export function catalogueFile(pair: LanguagePair): string {
  return `${pair.source}-${pair.target}.tsv.gz`;
}

/** A dictionary file's text (`word \t translation \t …` lines) as word → translations. */
export function parseCatalogueDictionary(text: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [word, ...translations] = line.split('\t');
    if (word && translations.length) entries.set(word, translations);
  }
  return entries;
}
