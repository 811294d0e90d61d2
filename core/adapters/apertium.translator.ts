import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { type FileHandle, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type Language, type PivotLanguage, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import type { EngineCapabilities, LanguagePair, TranslationEngine, WordTranslations } from '../ports/translator.js';
import { TranslatorError, pairKey } from '../ports/translator.js';

/** Apertium names languages by ISO 639-3 or 639-1 code in its mode names (`eng-spa`, `fr-es`, `ro-es`). */
const CODES: Record<string, PivotLanguage> = {
  en: 'en', eng: 'en',
  nl: 'nl', nld: 'nl',
  fr: 'fr', fra: 'fr',
  de: 'de', deu: 'de',
  es: 'es', spa: 'es',
  it: 'it', ita: 'it',
  bg: 'bg', bul: 'bg',
  ro: 'ro', ron: 'ro',
  ca: 'ca', cat: 'ca',
};

/** How Apertium translates a pair: with one of its modes, or two chained through a pivot language. */
export type ApertiumRoute = 'direct' | PivotLanguage;

/**
 * Routes through Catalan that translate better than the default ones, by pairKey. Catalan's pairs
 * with Spanish, French, Italian and English are among Apertium's best kept: these six pairs
 * translate 1.0–4.2 points of chrF better through them, on the LibreOffice help and on Debian's
 * package descriptions alike (bench/translation.bench.ts; docs/translation.md). But Catalan's
 * modes are slow to start: one paragraph takes 3–6× as long (es→fr 210 → 1,208 ms p50), and
 * query translation's retrieval figures stay level. So they are an option
 * (`APERTIUM_ROUTES`), not the default.
 */
export const CATALAN_ROUTES: Readonly<Record<string, ApertiumRoute>> = {
  'es-fr': 'ca',
  'fr-es': 'ca',
  'en-fr': 'ca',
  'en-it': 'ca',
  'fr-it': 'ca',
  'it-fr': 'ca',
};

type Modes = [string] | [string, string];

/** A pair's modes: one, or two chained through `pivot`; and the modes its dictionary look-ups run. */
interface Route {
  modes: Modes;
  pivot?: PivotLanguage;
  lookUp: Modes;
}

/**
 * Separates the texts of a batch in one Apertium run: the symbol for "record separator" passes
 * through every pair unchanged (an unknown punctuation mark), on a paragraph of its own so it never
 * joins a sentence. The same character inside a text is replaced by a space beforehand.
 */
const SEPARATOR = '\u241e';
const JOINER = `\n\n${SEPARATOR}\n\n`;

/** One short sentence per language, to probe a mode: an empty answer means the mode is broken. */
const PROBE_TEXT: Record<PivotLanguage, string> = {
  en: 'The house is big.',
  nl: 'Het huis is groot.',
  fr: 'La maison est grande.',
  de: 'Das Haus ist groß.',
  es: 'La casa es grande.',
  it: 'La casa è grande.',
  bg: 'Къщата е голяма.',
  ro: 'Casa este mare.',
  ca: 'La casa és gran.',
};

export interface ApertiumOptions {
  /** The `apertium` program (default: found on PATH). */
  binary?: string;
  /** Time limit of one run, after which its whole process group is killed (default 20 000). */
  timeoutMs?: number;
  /** Runs at a time (default 2); more wait. */
  concurrency?: number;
  /** Where the language data and its `modes/` are (default /usr/share/apertium); dictionary look-ups read the modes. */
  dataDir?: string;
  /**
   * Routes by pairKey (CATALAN_ROUTES, for one); a pair not given one, or whose route's modes are
   * not installed, takes its direct mode, else the chain through Spanish (the hub of Debian's
   * Apertium pairs), else through Catalan.
   */
  routes?: Readonly<Record<string, ApertiumRoute>>;
}

/** At most this many translations of a word are kept (after chaining through a pivot, where they multiply). */
export const MAX_WORD_TRANSLATIONS = 8;

interface RunResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Apertium (rule-based machine translation, Debian packages) run as a separate program: one
 * process per call, text on stdin, no shell of Lore's between it and Apertium. Its pairs are whatever modes
 * `apertium -l` lists, directly or chained through Spanish or Catalan (`ApertiumOptions.routes`).
 *
 * Runs use `-u` (unknown words are copied as they are, without Apertium's `*` mark) and the plain
 * text format, which keeps line breaks and paragraphs. A batch is one run: the texts joined by a
 * separator paragraph. `apertium` is a shell script around a pipeline of programs, so each run gets
 * its own process group and a timeout kills the whole group.
 *
 * Dictionary look-ups (`lookUp`) run the first stages of a mode's pipeline, as its file under
 * `modes/` lists them, through bash in the same way: the pipeline comes from the installed
 * package, the text only ever through stdin.
 */
export class ApertiumTranslator implements TranslationEngine {
  readonly name = 'apertium';
  private readonly binary: string;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly dataDir: string;
  private readonly preferred: Readonly<Record<string, ApertiumRoute>>;
  /** Each served pair's route, by pairKey. */
  private routes: Map<string, Route> | undefined;
  /** Each mode's stages up to its bilingual dictionary (see `dictionaryStages`), read once. */
  private readonly dictionaries = new Map<string, Promise<{ analysis: string[]; dictionary: string }>>();

  /** Whether the program runs (`apertium -V`): decides the default engine at start-up. */
  static isInstalled(binary = 'apertium'): boolean {
    const result = spawnSync(binary, ['-V'], { stdio: 'ignore', timeout: 5_000 });
    return result.error === undefined && result.status === 0;
  }

  constructor(options: ApertiumOptions = {}) {
    this.binary = options.binary ?? 'apertium';
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.concurrency = options.concurrency ?? 2;
    this.dataDir = options.dataDir ?? '/usr/share/apertium';
    this.preferred = options.routes ?? {};
  }

  /** Modes from `apertium -l`; each pair of the supported languages served directly or through a pivot (`routes`). */
  async discover(): Promise<EngineCapabilities> {
    const listed = await this.run(['-l'], '');
    if (listed.code !== 0) throw new TranslatorError('unavailable', `apertium -l exited with ${listed.code}`);
    const modes = new Map<string, string>();
    for (const line of listed.stdout.split('\n')) {
      const mode = line.trim();
      // Variants (spa-eng_US) and multi-step names (eco-es-fr) are not plain pairs.
      const match = /^([a-z]{2,3})-([a-z]{2,3})$/.exec(mode);
      const source = match && CODES[match[1]!];
      const target = match && CODES[match[2]!];
      if (source && target && source !== target) modes.set(`${source}-${target}`, mode);
    }
    const routes = new Map<string, Route>();
    for (const source of SUPPORTED_LANGUAGES) {
      for (const target of SUPPORTED_LANGUAGES) {
        const key = pairKey({ source, target });
        if (source === target) continue;
        const routeOf = (via: ApertiumRoute): Omit<Route, 'lookUp'> | undefined => {
          if (via === 'direct') return modes.has(key) ? { modes: [modes.get(key)!] } : undefined;
          const first = modes.get(`${source}-${via}`);
          const second = modes.get(`${via}-${target}`);
          return first && second ? { modes: [first, second], pivot: via } : undefined;
        };
        // The default route, which look-ups keep whatever route the translations take.
        const fallback = routeOf('direct') ?? routeOf('es') ?? routeOf('ca');
        const preferred = this.preferred[key];
        const route = (preferred && routeOf(preferred)) ?? fallback;
        if (route) routes.set(key, { ...route, lookUp: (fallback ?? route).modes });
      }
    }
    this.routes = routes;
    return new Map([...routes].map(([key, route]) => [key, route.pivot ? { pivot: route.pivot } : {}]));
  }

  async translate(texts: string[], pair: LanguagePair): Promise<string[]> {
    return this.translateWith((await this.routeOf(pair)).modes, texts);
  }

  /**
   * Every translation the pair's bilingual dictionary has for each word: the mode's analysis,
   * disambiguation and dictionary stages, without the lexical selection, transfer and generation
   * that pick one and inflect it. Whatever route a pair's translations take, its words are looked
   * up in its own mode where it has one, else through Spanish, so a pair translated through
   * Catalan keeps the look-ups it had (looking its words up through Catalan too was measured and
   * not kept: docs/retrieval-quality.md). A chained look-up looks each Spanish translation up again (at
   * most MAX_WORD_TRANSLATIONS a word).
   */
  async lookUp(texts: string[], pair: LanguagePair): Promise<WordTranslations[][]> {
    const [first, second] = (await this.routeOf(pair)).lookUp;
    if (!second) return (await this.lookUpWith(first, texts)).map((units) => units.map(wordTranslations));
    // Each of the pivot's translations, with its analysis, goes through the second dictionary alone.
    const halfway = await this.lookUpWith(first, texts);
    const pivots = [...new Set(halfway.flat().flatMap((unit) => unit.slice(1)))];
    const onward = new Map<string, string[]>();
    if (pivots.length) {
      const { dictionary } = await this.dictionaryStages(second);
      const units = await this.runDictionary(second, `lt-proc -b ${dictionary}`, pivots.map((unit) => `^${unit}$`));
      units.forEach(([found], i) => onward.set(pivots[i]!, found?.slice(1) ?? []));
    }
    return halfway.map((units) =>
      units.map((unit) => {
        const { word, translations } = wordTranslations([unit[0]!, ...unit.slice(1).flatMap((t) => onward.get(t) ?? [])]);
        return { word, translations: translations.slice(0, MAX_WORD_TRANSLATIONS) };
      }),
    );
  }

  /** Each text's lexical units after the mode's dictionary: the source's analysis, then its translations, with their tags. */
  private async lookUpWith(mode: string, texts: string[]): Promise<string[][][]> {
    const { analysis, dictionary } = await this.dictionaryStages(mode);
    // Plain text becomes Apertium's stream format first (`[`, `^`, `/` … escaped), as `apertium`
    // does it; without the full stop it adds to each paragraph: a query is rarely a sentence, and
    // the stop changed the tagger's choices (en>es fused nDCG@10 0.471 without it, 0.449 with).
    return this.runDictionary(mode, ['apertium-destxt -n', ...analysis, `lt-proc -b ${dictionary}`].join(' | '), texts);
  }

  private async runDictionary(mode: string, pipeline: string, texts: string[]): Promise<string[][][]> {
    const { work } = batchOf(texts);
    const out: string[][][] = texts.map(() => []);
    if (!work.length) return out;
    const result = await this.run(['-c', pipeline], work.map((w) => w.text).join(JOINER), 'bash');
    if (result.code !== 0) throw new TranslatorError('failed', `Apertium's dictionary of ${mode} exited with ${result.code}: ${firstLine(result.stderr)}`);
    const parts = result.stdout.split(SEPARATOR);
    if (parts.length !== work.length) throw new TranslatorError('failed', `Apertium's dictionary of ${mode} answered ${parts.length} texts for ${work.length}`);
    work.forEach((w, i) => (out[w.index] = dictionaryUnits(parts[i]!)));
    return out;
  }

  /**
   * A mode's stages (its file under `modes/`) before its bilingual dictionary (the analyser, the
   * tagger and whatever else runs first), and the dictionary's file, which runs as `lt-proc -b`
   * (older pairs apply it inside their first transfer stage instead).
   */
  private dictionaryStages(mode: string): Promise<{ analysis: string[]; dictionary: string }> {
    let stages = this.dictionaries.get(mode);
    if (!stages) {
      stages = readFile(path.join(this.dataDir, 'modes', `${mode}.mode`), 'utf8').then(
        (text) => {
          const all = text.trim().split('|').map((stage) => stage.trim().replaceAll(/\$[0-9]/g, ''));
          const at = all.findIndex((stage) => stage.includes('.autobil.bin'));
          const dictionary = at >= 0 ? /'[^']*\.autobil\.bin'|\S*\.autobil\.bin/.exec(all[at]!)?.[0] : undefined;
          if (!dictionary) throw new TranslatorError('failed', `Apertium's mode ${mode} has no bilingual dictionary stage`);
          return { analysis: all.slice(0, at), dictionary };
        },
        (error: NodeJS.ErrnoException) => {
          throw new TranslatorError('unavailable', `Apertium's mode ${mode} could not be read (${error.code ?? error.message})`, { cause: error });
        },
      );
      this.dictionaries.set(mode, stages);
      stages.catch(() => this.dictionaries.delete(mode));
    }
    return stages;
  }

  /** Each mode a route uses, with its language's sample sentence; a chained pair works when both of its modes do. */
  async probe(capabilities: EngineCapabilities): Promise<Map<string, boolean>> {
    const routes = await this.routeTable();
    const used = new Map<string, PivotLanguage>();
    for (const [key, route] of routes) {
      const source = key.split('-')[0] as Language;
      used.set(route.modes[0], source);
      if (route.modes[1]) used.set(route.modes[1], route.pivot!);
    }
    const working = new Map<string, boolean>();
    await Promise.all(
      [...used].map(async ([mode, source]) => {
        try {
          const [out] = await this.translateWith([mode], [PROBE_TEXT[source]]);
          working.set(mode, (out ?? '').trim() !== '');
        } catch {
          working.set(mode, false);
        }
      }),
    );
    const result = new Map<string, boolean>();
    for (const key of capabilities.keys()) {
      const route = routes.get(key);
      result.set(key, route !== undefined && route.modes.every((mode) => working.get(mode) === true));
    }
    return result;
  }

  private async routeTable(): Promise<Map<string, Route>> {
    if (!this.routes) await this.discover();
    return this.routes ?? new Map<string, Route>();
  }

  private async routeOf(pair: LanguagePair): Promise<Route> {
    const route = (await this.routeTable()).get(pairKey(pair));
    if (!route) throw new TranslatorError('failed', `Apertium has no mode for ${pairKey(pair)}`);
    return route;
  }

  /** Translates with one mode, or two chained in one pipeline (the second starts while the first does). */
  private async translateWith(modes: Modes, texts: string[]): Promise<string[]> {
    const { cleaned, work } = batchOf(texts);
    const out = [...cleaned];
    if (!work.length) return out;
    const translated = await this.runModes(modes, work.map((w) => w.text).join(JOINER));
    let parts = splitBatch(translated, work.length);
    if (!parts) {
      // The separator did not survive (it should); translate one by one rather than guess.
      parts = [];
      for (const w of work) parts.push(await this.runModes(modes, w.text));
    }
    work.forEach((w, i) => (out[w.index] = parts[i]!));
    return out;
  }

  private async runModes(modes: Modes, input: string): Promise<string> {
    const name = modes.join(' | ');
    // A chain is one pipeline through bash, the program and the modes as its arguments, never in its script.
    const result = await (modes.length === 1
      ? this.run(['-u', modes[0]], input)
      : this.run(['-c', 'set -o pipefail; "$0" -u "$1" | "$0" -u "$2"', this.binary, ...modes], input, 'bash'));
    if (result.code !== 0) {
      throw new TranslatorError('failed', `Apertium mode ${name} exited with ${result.code}: ${firstLine(result.stderr)}`);
    }
    // A broken pipeline (a missing program in the mode) exits 0 with nothing on stdout.
    if (result.stdout.trim() === '' && input.trim() !== '') {
      throw new TranslatorError('failed', `Apertium mode ${name} produced no output: ${firstLine(result.stderr)}`);
    }
    return result.stdout;
  }

  private async run(args: string[], input: string, program = this.binary): Promise<RunResult> {
    await this.acquire();
    try {
      return await this.spawnOnce(program, args, input);
    } finally {
      this.release();
    }
  }

  /**
   * The `apertium` script reads its input by opening /dev/stdin, which fails on the socket pairs
   * Node gives children as pipes; so stdin is a private temporary file, unlinked before the program
   * starts (the text never stays on disk under a name).
   */
  private async spawnOnce(program: string, args: string[], input: string): Promise<RunResult> {
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-apertium-'));
    let stdin: FileHandle;
    try {
      const file = path.join(dir, 'input');
      await writeFile(file, input, { encoding: 'utf8', mode: 0o600 });
      stdin = await open(file, 'r');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    try {
      return await this.spawnWith(program, args, stdin.fd);
    } finally {
      await stdin.close();
    }
  }

  private spawnWith(program: string, args: string[], stdinFd: number): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      const child = spawn(program, args, { stdio: [stdinFd, 'pipe', 'pipe'], detached: true }) as ChildProcessByStdio<null, Readable, Readable>;
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          // The whole group: the script and every program of its pipeline.
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, this.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const code = error.code === 'ENOENT' || error.code === 'EACCES' ? 'unavailable' : 'failed';
        reject(new TranslatorError(code, `Apertium could not be run (${error.code ?? error.message})`, { cause: error }));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (timedOut) {
          reject(new TranslatorError('failed', `Apertium timed out after ${this.timeoutMs} ms and was stopped`));
          return;
        }
        resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), code });
      });
    });
  }

  private async acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

/** A batch's texts made safe to join (NULs and the separator replaced), and those with content, with their places. */
function batchOf(texts: string[]): { cleaned: string[]; work: Array<{ text: string; index: number }> } {
  const cleaned = texts.map((t) => t.replaceAll('\u0000', ' ').replaceAll(SEPARATOR, ' '));
  return { cleaned, work: cleaned.map((text, index) => ({ text, index })).filter((t) => t.text.trim() !== '') };
}

/**
 * Splits a batch's output at the separators; undefined when their count is not what was sent.
 * Apertium leaves two spaces where a transfer rule drops a word ("25 días  de", then "25 jours
 * d'…" through French): runs of spaces become one, and none is left at a line's end.
 */
function splitBatch(output: string, count: number): string[] | undefined {
  const parts = output.split(SEPARATOR);
  if (parts.length !== count) return undefined;
  return parts.map((part, i) => {
    let text = part.replaceAll(/ {2,}/g, ' ').replaceAll(/ +\n/g, '\n');
    if (i > 0) text = text.replace(/^\n\n/, '');
    if (i < count - 1) text = text.replace(/\n\n$/, '');
    return text;
  });
}

/**
 * The lexical units of one text in the dictionary stage's stream, each `^lemma<tags>/translation<tags>/…$`
 * split into the source's analysis and its translations (escapes kept, so a unit can be fed to
 * another dictionary). Punctuation is left out.
 */
export function dictionaryUnits(stream: string): string[][] {
  const units: string[][] = [];
  // Escaped characters outside units (`\^` in a blank) are consumed, never taken for a unit's start.
  for (const match of stream.matchAll(/\\.|\^((?:[^$\\]|\\.)*)\$/g)) {
    if (match[1] === undefined) continue;
    const parts = match[1].split(/(?<!\\)\//);
    if (/<(?:sent|cm|lpar|rpar|lquot|rquot|guio|apos|quot|percent)>/.test(parts[0]!)) continue;
    units.push(parts);
  }
  return units;
}

/**
 * A unit's word (its lemma) and translations: a word the analyser does not know (`*word`), or the
 * dictionary does not (`@lemma`), is its own translation.
 */
export function wordTranslations([source, ...targets]: string[]): WordTranslations {
  const word = lemmaOf(source ?? '');
  const translations = [...new Set(targets.filter((t) => !/^[@*]/.test(t)).map(lemmaOf).filter(Boolean))];
  return { word, translations: translations.length ? translations : [word] };
}

/** A unit's lemma without its tags, escapes and marks (`*` unknown, `@` untranslated, `#` a multiword's joint, `+` a joined word). */
function lemmaOf(unit: string): string {
  return unit
    .replaceAll(/<[^>]*>/g, '')
    .replaceAll(/\\(.)/g, '$1')
    .replace(/^[*@~]/, '')
    .replaceAll('#', '')
    .replaceAll('+', ' ')
    .trim();
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 200) || 'no message';
}
