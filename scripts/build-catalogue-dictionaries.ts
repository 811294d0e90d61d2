/**
 * `npx tsx scripts/build-catalogue-dictionaries.ts [--locale-dir /usr/share/locale] [--out dictionaries/catalogues]`
 *
 * Builds the catalogue dictionaries (core/adapters/catalogue.dictionary.ts): bilingual word lists
 * of software vocabulary for every ordered pair of Lore's eight languages, from the gettext
 * catalogues (`.mo`) Debian's packages install for their user interfaces. Two catalogues of the same
 * domain translate the same English strings, so for a pair of languages each string's two
 * translations are parallel text (for English, the string itself). Words are aligned by IBM Model 1
 * (expectation–maximisation over the string pairs, a null word on the source side), and each word
 * keeps its likeliest translations.
 *
 * Reproducible from the same catalogues: the manifest written beside the dictionaries lists every
 * catalogue used (domain, languages, strings) and the Debian packages they came from; install those
 * packages (`apt-get install`) and run this again to get the same files. LibreOffice's own catalogues
 * are never read (they live elsewhere; the retrieval bench is LibreOffice's help, and a dictionary
 * made from its translations would flatter it).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { mo } from 'gettext-parser';
import { catalogueFile, catalogueWords } from '../core/adapters/catalogue.dictionary.js';
import { pairKey } from '../core/ports/translator.js';
import { SUPPORTED_LANGUAGES, type Language } from '../core/translation/translation.schema.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    'locale-dir': { type: 'string', default: '/usr/share/locale' },
    out: { type: 'string', default: path.join(ROOT, 'dictionaries/catalogues') },
    iterations: { type: 'string', default: '6' },
  },
});
const localeDir = values['locale-dir'];
const outDir = path.resolve(values.out);
const ITERATIONS = Number(values.iterations);

/** A word is kept when it occurs in at least this many strings of the pair. */
const MIN_WORD_STRINGS = 3;
/** A translation is kept when the model gives it at least this probability… */
const MIN_PROBABILITY = 0.1;
/** …and at most this many of them, likeliest first. */
const MAX_TRANSLATIONS = 4;
/** Strings longer than this many words are left out (long help texts align poorly and cost the most). */
const MAX_STRING_WORDS = 40;

/** Every string a language's catalogues translate, keyed by domain, context and English string. */
function catalogues(language: Language): { strings: Map<string, string>; files: Map<string, number> } {
  const strings = new Map<string, string>();
  const files = new Map<string, number>();
  const dir = path.join(localeDir, language, 'LC_MESSAGES');
  if (!existsSync(dir)) return { strings, files };
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.mo')).sort()) {
    const domain = name.slice(0, -3);
    if (/libreoffice/i.test(domain)) continue;
    let parsed;
    try {
      parsed = mo.parse(readFileSync(path.join(dir, name)));
    } catch {
      continue; // not a catalogue gettext-parser reads
    }
    let count = 0;
    for (const [context, entries] of Object.entries(parsed.translations)) {
      for (const entry of Object.values(entries)) {
        const translated = entry.msgstr[0];
        if (!entry.msgid || !translated) continue;
        strings.set(`${domain}\u0000${context}\u0000${entry.msgid}`, translated);
        count++;
      }
    }
    files.set(domain, count);
  }
  return { strings, files };
}

const english = (key: string): string => key.slice(key.lastIndexOf('\u0000') + 1);

/** The pair's parallel strings as word lists, each distinct pair once. */
function parallel(source: Language, target: Language, byLanguage: Map<Language, Map<string, string>>): Array<[string[], string[]]> {
  const sourceStrings = byLanguage.get(source);
  const targetStrings = byLanguage.get(target);
  const keys = source === 'en' ? [...targetStrings!.keys()] : [...sourceStrings!.keys()].filter((k) => target === 'en' || targetStrings!.has(k));
  const seen = new Set<string>();
  const pairs: Array<[string[], string[]]> = [];
  for (const key of keys) {
    const s = catalogueWords(source === 'en' ? english(key) : sourceStrings!.get(key)!);
    const t = catalogueWords(target === 'en' ? english(key) : targetStrings!.get(key)!);
    if (!s.length || !t.length || s.length > MAX_STRING_WORDS || t.length > MAX_STRING_WORDS) continue;
    const id = `${s.join(' ')}\t${t.join(' ')}`;
    if (seen.has(id)) continue;
    seen.add(id);
    pairs.push([s, t]);
  }
  return pairs;
}

/** IBM Model 1: for each source word, its translations' probabilities t(target | source), likeliest first. */
function align(pairs: Array<[string[], string[]]>): Map<string, Array<[string, number]>> {
  const ids = new Map<string, number>();
  const words: string[] = ['']; // 0: the null word
  const id = (w: string): number => {
    let i = ids.get(w);
    if (i === undefined) {
      i = words.length;
      ids.set(w, i);
      words.push(w);
    }
    return i;
  };
  const sourceSide = pairs.map(([s]) => [0, ...s.map((w) => id(`s:${w}`))]);
  const targetSide = pairs.map(([, t]) => t.map((w) => id(`t:${w}`)));
  const width = words.length;
  let probability = new Map<number, number>();
  for (const [i, s] of sourceSide.entries()) for (const e of s) for (const f of targetSide[i]!) probability.set(e * width + f, 1);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const counts = new Map<number, number>();
    const totals = new Map<number, number>();
    for (const [i, s] of sourceSide.entries()) {
      for (const f of targetSide[i]!) {
        let z = 0;
        for (const e of s) z += probability.get(e * width + f)!;
        for (const e of s) {
          const c = probability.get(e * width + f)! / z;
          counts.set(e * width + f, (counts.get(e * width + f) ?? 0) + c);
          totals.set(e, (totals.get(e) ?? 0) + c);
        }
      }
    }
    probability = new Map([...counts].map(([k, c]) => [k, c / totals.get(Math.floor(k / width))!]));
  }
  const out = new Map<string, Array<[string, number]>>();
  for (const [k, p] of probability) {
    const e = Math.floor(k / width);
    if (e === 0) continue;
    const source = words[e]!.slice(2);
    let list = out.get(source);
    if (!list) out.set(source, (list = []));
    list.push([words[k % width]!.slice(2), p]);
  }
  for (const list of out.values()) list.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return out;
}

const byLanguage = new Map<Language, Map<string, string>>();
const manifest: { built: string; localeDir: string; catalogues: Record<string, Record<string, number>>; packages: string[]; pairs: Record<string, { strings: number; words: number }> } = {
  built: new Date().toISOString().slice(0, 10),
  localeDir,
  catalogues: {},
  packages: [],
  pairs: {},
};
const moFiles: string[] = [];
for (const language of SUPPORTED_LANGUAGES.filter((l) => l !== 'en')) {
  const { strings, files } = catalogues(language);
  byLanguage.set(language, strings);
  manifest.catalogues[language] = Object.fromEntries(files);
  for (const domain of files.keys()) moFiles.push(path.join(localeDir, language, 'LC_MESSAGES', `${domain}.mo`));
  console.log(`${language}: ${files.size} catalogues, ${strings.size} strings`);
}
try {
  // Which Debian packages installed the catalogues (so the run can be repeated on the same set).
  const owners = execFileSync('dpkg', ['-S', ...moFiles], { encoding: 'utf8', maxBuffer: 64 << 20 });
  manifest.packages = [...new Set(owners.split('\n').flatMap((line) => (line.includes(': ') ? line.split(': ')[0]!.split(', ') : [])))].sort();
} catch {
  manifest.packages = []; // not a Debian system, or a catalogue no package owns
}

mkdirSync(outDir, { recursive: true });
for (const source of SUPPORTED_LANGUAGES) {
  for (const target of SUPPORTED_LANGUAGES) {
    if (source === target) continue;
    const started = performance.now();
    const pairs = parallel(source, target, byLanguage);
    const stringsOf = new Map<string, number>();
    for (const [s] of pairs) for (const w of new Set(s)) stringsOf.set(w, (stringsOf.get(w) ?? 0) + 1);
    const lines: string[] = [];
    for (const [word, translations] of [...align(pairs)].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      // Stop words stay (a query's are dropped by the keyword analysis, their translations too).
      if ((stringsOf.get(word) ?? 0) < MIN_WORD_STRINGS) continue;
      const kept = translations.filter(([, p]) => p >= MIN_PROBABILITY).slice(0, MAX_TRANSLATIONS).map(([t]) => t);
      if (kept.length) lines.push([word, ...kept].join('\t'));
    }
    writeFileSync(path.join(outDir, catalogueFile({ source, target })), gzipSync(lines.join('\n') + '\n', { level: 9 }));
    manifest.pairs[pairKey({ source, target })] = { strings: pairs.length, words: lines.length };
    console.log(`${pairKey({ source, target })}: ${pairs.length} strings, ${lines.length} words (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
}
writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
