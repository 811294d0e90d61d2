import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync, constants as zlibConstants } from 'node:zlib';
import type { BilingualDictionary, LanguagePair, WordTranslations } from '../ports/translator.js';
import { TranslatorError, pairKey } from '../ports/translator.js';
import { dictionaryForms } from '../translation/dictionary-forms.js';
import type { Language } from '../translation/translation.schema.js';

/** FreeDict names its dictionaries by ISO 639-3 codes (`freedict-deu-eng`). */
const CODES: Record<string, Language> = { eng: 'en', nld: 'nl', fra: 'fr', deu: 'de', spa: 'es', ita: 'it', bul: 'bg', ron: 'ro' };

/** At most this many translations of a word are kept. */
export const MAX_DICTIONARY_TRANSLATIONS = 8;

export interface FreeDictOptions {
  /** Where the dictionaries are (default /usr/share/dictd, where Debian's dict-freedict-* packages put them). */
  dir?: string;
}

/**
 * FreeDict's bilingual dictionaries (Debian's `dict-freedict-<src>-<tgt>` packages, dictd format:
 * a sorted index of headwords and a dictzip-compressed text) as a BilingualDictionary: each word
 * of a text with every translation its entries give, for pairs no translation engine may serve
 * (German, Dutch and Bulgarian have no Apertium pair in Debian). A pair's index and compressed
 * text are read into memory on its first look-up (30 MB for German–English) and searched as they
 * are: the index by halving, the text by inflating only the chunks an entry lies in.
 *
 * An entry's first line is its headword; the lines after it give translations (comma- or
 * semicolon-separated, numbered senses allowed), and lines of examples, notes, synonyms and
 * cross-references are left out. Senses marked as computing's (`[comp.]`) come first, then the
 * entries' order; a translation of one word is preferred to a phrase.
 */
export class FreeDictDictionary implements BilingualDictionary {
  readonly name = 'freedict';
  private readonly dir: string;
  private files: Promise<Map<string, string>> | undefined;
  private readonly loaded = new Map<string, Promise<LoadedDictionary>>();

  constructor(options: FreeDictOptions = {}) {
    this.dir = options.dir ?? '/usr/share/dictd';
  }

  /** The pairs among the supported languages whose dictionary (index and text) is installed, by pairKey. */
  async pairs(): Promise<ReadonlySet<string>> {
    return new Set((await this.fileTable()).keys());
  }

  async lookUp(texts: string[], pair: LanguagePair): Promise<WordTranslations[][]> {
    const dictionary = await this.dictionary(pair);
    return texts.map((text) => {
      const out: WordTranslations[] = [];
      for (const token of text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []) {
        const word = token.replace(/['-]+$/, '');
        const translations = dictionary.translate(dictionaryForms(word, pair.source));
        out.push({ word, translations: translations.length ? translations : [word] });
      }
      return out;
    });
  }

  private fileTable(): Promise<Map<string, string>> {
    this.files ??= readdir(this.dir).then(
      (names) => {
        const files = new Map<string, string>();
        for (const name of names) {
          const match = /^freedict-([a-z]{3})-([a-z]{3})\.index$/.exec(name);
          const source = match && CODES[match[1]!];
          const target = match && CODES[match[2]!];
          if (source && target && names.includes(name.replace(/\.index$/, '.dict.dz'))) {
            files.set(pairKey({ source, target }), path.join(this.dir, name.replace(/\.index$/, '')));
          }
        }
        return files;
      },
      () => new Map<string, string>(),
    );
    return this.files;
  }

  private async dictionary(pair: LanguagePair): Promise<LoadedDictionary> {
    const key = pairKey(pair);
    let dictionary = this.loaded.get(key);
    if (!dictionary) {
      const base = (await this.fileTable()).get(key);
      if (!base) throw new TranslatorError('failed', `FreeDict has no dictionary for ${key}`);
      dictionary = Promise.all([readFile(`${base}.index`), readFile(`${base}.dict.dz`)]).then(
        ([index, text]) => new LoadedDictionary(index, new DictZip(text)),
        (error: NodeJS.ErrnoException) => {
          throw new TranslatorError('unavailable', `FreeDict's ${key} dictionary could not be read (${error.code ?? error.message})`, { cause: error });
        },
      );
      this.loaded.set(key, dictionary);
      dictionary.catch(() => this.loaded.delete(key));
    }
    return dictionary;
  }
}

/**
 * One pair's index, kept as it is (one line per entry: headword, offset and length, sorted by
 * headword as dictd requires; sorted here when it is not) with where each line starts, searched by
 * halving; and its text.
 */
class LoadedDictionary {
  /** Where each entry's line starts, in headword order; one more: the end. */
  private readonly lines: Int32Array;

  constructor(
    private readonly index: Buffer,
    private readonly text: DictZip,
  ) {
    const starts: number[] = [];
    for (let at = 0; at < index.length; at = index.indexOf(10, at) + 1 || index.length) {
      const tab = index.indexOf(9, at);
      const end = index.indexOf(10, at);
      if (tab > at && (end < 0 || tab < end) && !index.toString('latin1', at, at + 11).startsWith('00-database')) starts.push(at);
    }
    const sorted = starts.every((start, i) => i === 0 || this.compareLines(starts[i - 1]!, start) <= 0);
    if (!sorted) starts.sort((a, b) => this.compareLines(a, b));
    this.lines = Int32Array.from(starts);
  }

  /** The translations of the first of a word's forms (dictionaryForms) that is a headword; [] when none. */
  translate(candidates: readonly string[]): string[] {
    for (const candidate of candidates) {
      const places = this.places(candidate);
      if (!places.length) continue;
      const senses = places.map(([offset, length]) => entryTranslations(this.text.read(offset, length)));
      const ordered = [...senses.filter((s) => s.computing), ...senses.filter((s) => !s.computing)].flatMap((s) => s.translations);
      const unique = [...new Set(ordered)];
      const words = unique.filter((t) => !/\s/.test(t));
      return (words.length ? words : unique).slice(0, MAX_DICTIONARY_TRANSLATIONS);
    }
    return [];
  }

  /** The offset and length of each entry of this headword. */
  private places(headword: string): Array<[number, number]> {
    const key = Buffer.from(headword, 'utf8');
    let low = 0;
    let high = this.lines.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compareKey(this.lines[middle]!, key) < 0) low = middle + 1;
      else high = middle;
    }
    const places: Array<[number, number]> = [];
    for (let i = low; i < this.lines.length && this.compareKey(this.lines[i]!, key) === 0; i++) {
      const start = this.lines[i]!;
      const end = this.index.indexOf(10, start);
      const [, offset, length] = this.index.toString('latin1', start, end < 0 ? this.index.length : end).split('\t');
      if (offset && length) places.push([base64Number(offset), base64Number(length)]);
    }
    return places;
  }

  private headwordEnd(start: number): number {
    return this.index.indexOf(9, start);
  }

  /** A line's headword against a key, as bytes (UTF-8 bytes order as code points do). */
  private compareKey(start: number, key: Buffer): number {
    return this.index.compare(key, 0, key.length, start, this.headwordEnd(start));
  }

  private compareLines(a: number, b: number): number {
    return this.index.compare(this.index, b, this.headwordEnd(b), a, this.headwordEnd(a));
  }
}

/** An entry's translations (lower-cased), and whether it is marked as computing's. */
export function entryTranslations(entry: string): { translations: string[]; computing: boolean } {
  const translations: string[] = [];
  let computing = false;
  for (const raw of entry.split('\n').slice(1)) {
    const line = raw.trim();
    if (!line || /^("|Synonyms?:|see:|Note:|Antonyms?:)/.test(line)) continue;
    if (line.includes('[comp.]')) computing = true;
    const bare = line
      .replace(/^\d+\.\s*/, '')
      .replaceAll(/\[[^\]]*\]|<[^>]*>|\{[^}]*\}|\([^)]*\)|\/[^/]*\//g, ' ');
    for (const part of bare.split(/[,;]/)) {
      const translation = part.replaceAll(/\s+/g, ' ').trim().toLowerCase();
      if (translation && !/^(sth|sb|etw|jdn|jdm)\.?$/.test(translation)) translations.push(translation);
    }
  }
  return { translations, computing };
}

/** dictd's base-64 numbers (offsets and lengths in the index). */
function base64Number(text: string): number {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let n = 0;
  for (const c of text) n = n * 64 + alphabet.indexOf(c);
  return n;
}

/**
 * A dictzip file (gzip whose `RA` extra field lists its chunks, each compressed on its own), read
 * at any offset by inflating only the chunks that hold it.
 */
export class DictZip {
  private readonly chunkLength: number;
  /** Where each chunk's compressed bytes start (one more: where the last ends). */
  private readonly starts: number[] = [];

  constructor(private readonly file: Buffer) {
    if (file[0] !== 0x1f || file[1] !== 0x8b || !(file[3]! & 4)) throw new TranslatorError('failed', 'not a dictzip file');
    const extraLength = file.readUInt16LE(10);
    let at = 12;
    let chunkLength = 0;
    let sizes: number[] = [];
    while (at < 12 + extraLength) {
      const id = file.toString('latin1', at, at + 2);
      const length = file.readUInt16LE(at + 2);
      if (id === 'RA') {
        chunkLength = file.readUInt16LE(at + 6);
        const count = file.readUInt16LE(at + 8);
        sizes = Array.from({ length: count }, (_, i) => file.readUInt16LE(at + 10 + 2 * i));
      }
      at += 4 + length;
    }
    if (!chunkLength) throw new TranslatorError('failed', 'a dictzip file without its chunk table');
    const flags = file[3]!;
    at = 12 + extraLength;
    if (flags & 8) at = file.indexOf(0, at) + 1;
    if (flags & 16) at = file.indexOf(0, at) + 1;
    if (flags & 2) at += 2;
    this.chunkLength = chunkLength;
    for (const size of sizes) {
      this.starts.push(at);
      at += size;
    }
    this.starts.push(at);
  }

  read(offset: number, length: number): string {
    const first = Math.floor(offset / this.chunkLength);
    const last = Math.floor((offset + length - 1) / this.chunkLength);
    const parts: Buffer[] = [];
    for (let chunk = first; chunk <= last && chunk < this.starts.length - 1; chunk++) {
      parts.push(inflateRawSync(this.file.subarray(this.starts[chunk], this.starts[chunk + 1]), { finishFlush: zlibConstants.Z_SYNC_FLUSH }));
    }
    const from = offset - first * this.chunkLength;
    return Buffer.concat(parts).toString('utf8', from, from + length);
  }
}
