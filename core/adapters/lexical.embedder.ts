import type { EmbedOptions, Embedder } from '../ports/embedder.js';
import { LEXICAL_FUSION } from '../search/fusion.js';
import { assertDimensions, normalisedFloat32 } from './fit-dimensions.js';

/**
 * The default embedder: needs no model, no download and no network, so a fresh install can search.
 * A text becomes a bag of hashed features — word unigrams, word bigrams and character 3–5-grams
 * within words (with '<' and '>' marking the word's edges) — weighted by sublinear term frequency
 * (1 + ln tf) and a per-kind weight, then projected onto the requested dimensions with the signed
 * hashing trick (each feature adds ±weight at one index) and L2-normalised.
 *
 * Character n-grams let inflected and compound forms meet ('книга'/'книгата', 'search'/'searching')
 * and survive typos; words and bigrams make exact terms and phrases count more. It matches forms,
 * not meanings: it will not find 'car' for 'automobile', nor cross languages except through shared
 * word forms (names, numbers, cognates). Queries and documents are embedded the same way.
 *
 * Everything here is part of the vector format: changing a salt, weight, the normalisation or the
 * tokenisation changes vectors, and then `id` must change.
 */

const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
/** A 7-letter word yields 18 n-grams; at 0.25 each they weigh about as much (L2) as the word itself. */
const CHAR_NGRAM_WEIGHT = 0.25;
const MIN_NGRAM = 3;
const MAX_NGRAM = 5;

const WORD_SALT = 0x2f6b_1d35;
const BIGRAM_SALT = 0x5c1e_93a7;
const CHAR_NGRAM_SALT = 0x71d4_0b69;
const SIGN_SALT = 0x3a8f_c2e1;
/**
 * A text with no letters or digits (empty, whitespace, punctuation) still needs a unit vector for
 * cosine search, so it is the single feature with this key: all such texts are identical to one
 * another and unrelated to everything else.
 */
const EMPTY_TEXT_KEY = 0x0e3b_7a51;

const WORD_START = 0x3c; // '<' — never inside a word, which holds only letters, marks and digits
const WORD_END = 0x3e; // '>'

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The Combining Diacritical Marks block: accents of Latin, Greek and Cyrillic letters after NFD. */
const DIACRITICS = /[\u0300-\u036f]/g;
/** Letters that carry a diacritic or ligature but have no canonical decomposition. */
const UNDECOMPOSABLE = /[ßæœøłđħıŀ]/g;
const UNDECOMPOSABLE_FOLDS: Record<string, string> = {
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ħ: 'h', ı: 'i', ŀ: 'l',
};

export class LexicalEmbedder implements Embedder {
  readonly id = 'lexical-v1';
  readonly fusion = LEXICAL_FUSION;
  readonly lexical = true;
  private readonly features = new FeatureTable();

  embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    // The executor turns a bad `dimensions` into a rejection, as callers of a promise expect.
    return new Promise((resolve) => resolve(texts.map((text) => this.embedText(text, options.dimensions))));
  }

  /**
   * The title twice, then the text: a title word counts as two occurrences (sublinear tf: ×1.69),
   * as keyword search weighs its title field above the text. On the LibreOffice help the vector
   * side's nDCG@10 went 0.416 → 0.492 on the mean of six languages with the title twice, and to
   * ~0.47 with it once (docs/retrieval-quality.md, "The LibreOffice help").
   */
  passageText(title: string, content: string): string {
    return `${title}\n${title}\n\n${content}`;
  }

  /** Synchronous single-text form (the work is CPU-only); the same vector `embed` returns. */
  embedText(text: string, dimensions: number): Float32Array {
    assertDimensions(dimensions);
    const features = this.features;
    features.reset();
    collectFeatures(normaliseText(text), features);
    if (features.size === 0) features.add(EMPTY_TEXT_KEY, WORD_WEIGHT);

    const vector = new Float64Array(dimensions);
    for (let i = 0; i < features.size; i++) {
      const slot = features.order[i] as number;
      const key = features.keys[slot] as number;
      const count = features.counts[slot] as number;
      const weight = count === 1 ? (features.weights[slot] as number) : (features.weights[slot] as number) * (1 + Math.log(count));
      const index = (key >>> 0) % dimensions;
      vector[index] = (vector[index] as number) + (fmix32(key ^ SIGN_SALT) & 1 ? weight : -weight);
    }
    return normalisedFloat32(vector);
  }
}

/**
 * NFKC (full-width forms, ligatures), locale-independent lower case, then accents dropped so 'café'
 * meets 'cafe' and 'ș' meets 'ş' and 's'. Cyrillic 'й' folds to 'и' too: a small loss of precision
 * in Bulgarian, and queries typed without it still match.
 */
export function normaliseText(text: string): string {
  if (isAscii(text)) return text.toLowerCase();
  return text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(DIACRITICS, '')
    .replace(UNDECOMPOSABLE, (letter) => UNDECOMPOSABLE_FOLDS[letter] ?? letter)
    .normalize('NFC');
}

/** ASCII text is already NFKC/NFD/NFC and has no accents: lower-casing is all it needs. */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function collectFeatures(text: string, features: FeatureTable): void {
  const wordChars = wordCharTable();
  let previousWord = 0;
  let hasPrevious = false;
  let position = 0;
  while (position < text.length) {
    const width = wordCharWidth(text, position, wordChars);
    if (width === 0) {
      position++;
      continue;
    }
    const start = position;
    position += width;
    for (let next = wordCharWidth(text, position, wordChars); next > 0; next = wordCharWidth(text, position, wordChars)) {
      position += next;
    }

    const wordHash = addWord(text, start, position, features);
    if (hasPrevious) {
      features.add(fmix32((Math.imul(previousWord ^ BIGRAM_SALT, 0x85ebca6b) + wordHash) | 0), BIGRAM_WEIGHT);
    }
    previousWord = wordHash;
    hasPrevious = true;
  }
}

/** Adds the word text[start, end) and its character n-grams; returns the word's FNV-1a hash. */
function addWord(text: string, start: number, end: number, features: FeatureTable): number {
  let wordHash = FNV_OFFSET;
  for (let i = start; i < end; i++) wordHash = Math.imul(wordHash ^ text.charCodeAt(i), FNV_PRIME);
  features.add(fmix32(wordHash ^ WORD_SALT), WORD_WEIGHT);

  // Each start offset extends one FNV-1a state through 3, 4 and 5 characters of '<word>', so no
  // n-gram string is ever built. Offset 0 is '<', offset `padded - 1` is '>'.
  const padded = end - start + 2;
  for (let first = 0; first + MIN_NGRAM <= padded; first++) {
    let hash = FNV_OFFSET;
    const stop = Math.min(padded, first + MAX_NGRAM);
    for (let offset = first; offset < stop; offset++) {
      const code = offset === 0 ? WORD_START : offset === padded - 1 ? WORD_END : text.charCodeAt(start + offset - 1);
      hash = Math.imul(hash ^ code, FNV_PRIME);
      if (offset - first + 1 >= MIN_NGRAM) features.add(fmix32(hash ^ CHAR_NGRAM_SALT), CHAR_NGRAM_WEIGHT);
    }
  }
  return wordHash;
}

/**
 * How many UTF-16 code units of a word character (letter, mark or digit, any script) start at
 * `position`: 0, 1, or 2 for a surrogate pair. A lookup table replaces a Unicode regex, which was
 * the slowest step of embedding a chunk.
 */
function wordCharWidth(text: string, position: number, wordChars: Uint8Array): number {
  const unit = text.charCodeAt(position);
  if (Number.isNaN(unit)) return 0;
  if (wordChars[unit] === 1) return 1;
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const codePoint = text.codePointAt(position) as number;
    return codePoint > 0xffff && WORD_CHAR.test(String.fromCodePoint(codePoint)) ? 2 : 0;
  }
  return 0;
}

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
let wordCharsOfBmp: Uint8Array | undefined;

/** Built on first use (about 10 ms) rather than at import. */
function wordCharTable(): Uint8Array {
  if (wordCharsOfBmp === undefined) {
    const table = new Uint8Array(0x10000);
    for (let unit = 0; unit < 0x10000; unit++) {
      if (WORD_CHAR.test(String.fromCharCode(unit))) table[unit] = 1;
    }
    wordCharsOfBmp = table;
  }
  return wordCharsOfBmp;
}

/** murmur3's finaliser: FNV-1a's low bits mix poorly, and the index and sign come from them. */
function fmix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * Term frequencies by feature key: open addressing over typed arrays that are reused between texts
 * (a generation stamp marks live slots, so nothing is cleared), which keeps the hot loop free of
 * allocation. `order` remembers insertion order so the vector sums in the same order every time.
 * One table per embedder is safe: a text is embedded synchronously, start to finish.
 */
class FeatureTable {
  keys = new Int32Array(1024);
  counts = new Float64Array(1024);
  weights = new Float64Array(1024);
  order = new Int32Array(512);
  size = 0;
  private stamps = new Uint32Array(1024);
  private generation = 1;
  private mask = 1023;

  reset(): void {
    this.size = 0;
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  add(key: number, weight: number): void {
    let slot = key & this.mask;
    while (this.stamps[slot] === this.generation) {
      if (this.keys[slot] === key) {
        this.counts[slot] = (this.counts[slot] as number) + 1;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
    this.stamps[slot] = this.generation;
    this.keys[slot] = key;
    this.counts[slot] = 1;
    this.weights[slot] = weight;
    this.order[this.size++] = slot;
    if (this.size === this.order.length) this.grow();
  }

  /** Doubles the table when half full, re-inserting live slots in their original order. */
  private grow(): void {
    const { keys, counts, weights, order, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Int32Array(capacity);
    this.counts = new Float64Array(capacity);
    this.weights = new Float64Array(capacity);
    this.order = new Int32Array(capacity / 2);
    this.stamps = new Uint32Array(capacity);
    this.generation = 1;
    this.mask = capacity - 1;
    for (let i = 0; i < size; i++) {
      const oldSlot = order[i] as number;
      const key = keys[oldSlot] as number;
      let slot = key & this.mask;
      while (this.stamps[slot] === 1) slot = (slot + 1) & this.mask;
      this.stamps[slot] = 1;
      this.keys[slot] = key;
      this.counts[slot] = counts[oldSlot] as number;
      this.weights[slot] = weights[oldSlot] as number;
      this.order[i] = slot;
    }
  }
}
