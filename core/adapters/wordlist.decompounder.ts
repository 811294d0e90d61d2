import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_WORD_LISTS } from '../config.js';
import type { Decompounder } from '../ports/decompounder.js';
import type { Language } from '../translation/translation.schema.js';

/** Linking elements between the parts of a compound (Fugenelemente; tussenklanken), longest first. */
const LINKS: Partial<Record<Language, readonly string[]>> = {
  de: ['ens', 'es', 'en', 'er', 'n', 's', 'e'],
  nl: ['en', 's', 'e'],
};

/** A part is at least this long: shorter "words" (prefixes, articles) split words that are not compounds. */
const MIN_PART = 4;
/** Words shorter than this are left whole (two parts of MIN_PART). */
const MIN_COMPOUND = 2 * MIN_PART;
/**
 * Words longer than this are left whole: no compound of the lists is (the German list's longest
 * is under 40 letters), and trying every split of a long run of letters costs the cube of its length.
 */
const MAX_COMPOUND = 48;
const MAX_PARTS = 4;
const WORD = /[\p{L}]+/gu;

/**
 * Splits a compound into words of a list: the split into the fewest parts, each in the list (the
 * first parts possibly followed by a linking element), the longest last part on a tie (German and
 * Dutch compounds end in their head). Words of the list are kept in lower case.
 */
export class CompoundSplitter {
  private readonly cache = new Map<string, string[]>();

  constructor(
    private readonly words: ReadonlySet<string>,
    private readonly links: readonly string[],
  ) {}

  /** The parts of `word` (lower case), or [] when it is not a compound of listed words. */
  split(word: string): string[] {
    const w = word.toLowerCase();
    if (w.length < MIN_COMPOUND || w.length > MAX_COMPOUND) return [];
    let parts = this.cache.get(w);
    if (!parts) {
      parts = this.best(w, MAX_PARTS) ?? [];
      if (this.cache.size > 100_000) this.cache.clear();
      this.cache.set(w, parts);
    }
    return parts;
  }

  /**
   * The fewest listed parts `w` is made of, or null: itself when listed (unless `top`: a compound
   * is split even when the list holds it whole), else a first part and the fewest parts of the rest.
   */
  private best(w: string, budget: number, top = true): string[] | null {
    if (!top && this.words.has(w)) return [w];
    if (budget < 2) return null;
    let chosen: string[] | null = null;
    for (let i = w.length - MIN_PART; i >= MIN_PART; i--) {
      const rest = this.best(w.slice(i), budget - 1, false);
      if (!rest || (chosen && chosen.length <= rest.length + 1)) continue;
      const head = this.head(w.slice(0, i));
      if (head) chosen = [head, ...rest];
    }
    return chosen;
  }

  /** A first part as listed: itself, or without its linking element. */
  private head(h: string): string | null {
    if (this.words.has(h)) return h;
    for (const link of this.links) {
      if (h.length - link.length >= MIN_PART && h.endsWith(link) && this.words.has(h.slice(0, -link.length))) return h.slice(0, -link.length);
    }
    return null;
  }
}

/** Word lists read once per process, by path (every app of a test run shares them). */
const loaded = new Map<string, ReadonlySet<string>>();

function readWordList(file: string): ReadonlySet<string> {
  let words = loaded.get(file);
  if (!words) {
    words = new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim().toLowerCase())
        .filter((line) => line.length >= MIN_PART && /^\p{L}+$/u.test(line)),
    );
    loaded.set(file, words);
  }
  return words;
}

/**
 * Decompounding from word lists installed on the system (DEFAULT_WORD_LISTS unless configured):
 * the languages whose list exists are split, the others are not. Lists are read on first use.
 */
export class WordListDecompounder implements Decompounder {
  readonly languages: readonly Language[];
  private readonly splitters = new Map<Language, CompoundSplitter>();

  constructor(private readonly lists: Partial<Record<Language, string>> = DEFAULT_WORD_LISTS) {
    this.languages = (Object.keys(lists) as Language[]).filter((l) => existsSync(lists[l]!));
  }

  private splitter(language: Language): CompoundSplitter {
    let splitter = this.splitters.get(language);
    if (!splitter) {
      splitter = new CompoundSplitter(readWordList(this.lists[language]!), LINKS[language] ?? []);
      this.splitters.set(language, splitter);
    }
    return splitter;
  }

  parts(text: string, wanted: readonly Language[]): string {
    const languages = this.languages.filter((l) => wanted.includes(l));
    if (!languages.length) return '';
    const out: string[] = [];
    for (const [word] of text.matchAll(WORD)) {
      if (word.length < MIN_COMPOUND || word.length > MAX_COMPOUND) continue;
      const found = new Set<string>();
      for (const l of languages) for (const part of this.splitter(l).split(word)) found.add(part);
      out.push(...found);
    }
    return out.join(' ');
  }
}
