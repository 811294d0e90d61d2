import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { type FileHandle, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Language } from '../translation/translation.schema.js';
import type { EngineCapabilities, LanguagePair, TranslationEngine } from '../ports/translator.js';
import { TranslatorError, pairKey } from '../ports/translator.js';

/** Apertium names languages by ISO 639-3 or 639-1 code in its mode names (`eng-spa`, `fr-es`, `ro-es`). */
const CODES: Record<string, Language> = {
  en: 'en', eng: 'en',
  nl: 'nl', nld: 'nl',
  fr: 'fr', fra: 'fr',
  de: 'de', deu: 'de',
  es: 'es', spa: 'es',
  it: 'it', ita: 'it',
  bg: 'bg', bul: 'bg',
  ro: 'ro', ron: 'ro',
};

/** Pairs without a direct mode are chained through Spanish, the hub of Debian's Apertium pairs. */
const PIVOT: Language = 'es';

/**
 * Separates the texts of a batch in one Apertium run: the symbol for "record separator" passes
 * through every pair unchanged (an unknown punctuation mark), on a paragraph of its own so it never
 * joins a sentence. The same character inside a text is replaced by a space beforehand.
 */
const SEPARATOR = '\u241e';
const JOINER = `\n\n${SEPARATOR}\n\n`;

/** One short sentence per language, to probe a mode: an empty answer means the mode is broken. */
const PROBE_TEXT: Record<Language, string> = {
  en: 'The house is big.',
  nl: 'Het huis is groot.',
  fr: 'La maison est grande.',
  de: 'Das Haus ist groß.',
  es: 'La casa es grande.',
  it: 'La casa è grande.',
  bg: 'Къщата е голяма.',
  ro: 'Casa este mare.',
};

export interface ApertiumOptions {
  /** The `apertium` program (default: found on PATH). */
  binary?: string;
  /** Time limit of one run, after which its whole process group is killed (default 20 000). */
  timeoutMs?: number;
  /** Runs at a time (default 2); more wait. */
  concurrency?: number;
}

interface RunResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Apertium (rule-based machine translation, Debian packages) run as a separate program: one
 * process per call, text on stdin, no shell of Lore's between it and Apertium. Its pairs are whatever modes
 * `apertium -l` lists; a pair without a mode is chained through Spanish when both halves exist.
 *
 * Runs use `-u` (unknown words are copied as they are, without Apertium's `*` mark) and the plain
 * text format, which keeps line breaks and paragraphs. A batch is one run: the texts joined by a
 * separator paragraph. `apertium` is a shell script around a pipeline of programs, so each run gets
 * its own process group and a timeout kills the whole group.
 */
export class ApertiumTranslator implements TranslationEngine {
  readonly name = 'apertium';
  private readonly binary: string;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private modes: Map<string, string> | undefined;

  /** Whether the program runs (`apertium -V`): decides the default engine at start-up. */
  static isInstalled(binary = 'apertium'): boolean {
    const result = spawnSync(binary, ['-V'], { stdio: 'ignore', timeout: 5_000 });
    return result.error === undefined && result.status === 0;
  }

  constructor(options: ApertiumOptions = {}) {
    this.binary = options.binary ?? 'apertium';
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.concurrency = options.concurrency ?? 2;
  }

  /** Direct modes from `apertium -l`, then pivots through Spanish for the pairs they leave out. */
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
      if (source && target && source !== target) modes.set(pairKey({ source, target }), mode);
    }
    this.modes = modes;
    const capabilities: EngineCapabilities = new Map();
    for (const key of modes.keys()) capabilities.set(key, {});
    for (const source of Object.values(CODES)) {
      for (const target of Object.values(CODES)) {
        const key = pairKey({ source, target });
        if (source === target || capabilities.has(key)) continue;
        if (modes.has(pairKey({ source, target: PIVOT })) && modes.has(pairKey({ source: PIVOT, target }))) {
          capabilities.set(key, { pivot: PIVOT });
        }
      }
    }
    return capabilities;
  }

  async translate(texts: string[], pair: LanguagePair): Promise<string[]> {
    const modes = await this.modeTable();
    const direct = modes.get(pairKey(pair));
    if (direct) return this.translateWith(direct, texts);
    const first = modes.get(pairKey({ source: pair.source, target: PIVOT }));
    const second = modes.get(pairKey({ source: PIVOT, target: pair.target }));
    if (!first || !second) throw new TranslatorError('failed', `Apertium has no mode for ${pairKey(pair)}`);
    return this.translateWith(second, await this.translateWith(first, texts));
  }

  /** Each mode with its language's sample sentence; a pivot pair works when both of its modes do. */
  async probe(capabilities: EngineCapabilities): Promise<Map<string, boolean>> {
    const modes = await this.modeTable();
    const working = new Map<string, boolean>();
    await Promise.all(
      [...modes].map(async ([key, mode]) => {
        const source = key.split('-')[0] as Language;
        try {
          const [out] = await this.translateWith(mode, [PROBE_TEXT[source]]);
          working.set(key, (out ?? '').trim() !== '');
        } catch {
          working.set(key, false);
        }
      }),
    );
    const result = new Map<string, boolean>();
    for (const [key, route] of capabilities) {
      const [source, target] = key.split('-') as [Language, Language];
      result.set(
        key,
        route.pivot
          ? working.get(pairKey({ source, target: route.pivot })) === true && working.get(pairKey({ source: route.pivot, target })) === true
          : working.get(key) === true,
      );
    }
    return result;
  }

  private async modeTable(): Promise<Map<string, string>> {
    if (!this.modes) await this.discover();
    return this.modes ?? new Map<string, string>();
  }

  private async translateWith(mode: string, texts: string[]): Promise<string[]> {
    const cleaned = texts.map((t) => t.replaceAll('\u0000', ' ').replaceAll(SEPARATOR, ' '));
    const work = cleaned.map((text, index) => ({ text, index })).filter((t) => t.text.trim() !== '');
    const out = [...cleaned];
    if (!work.length) return out;
    const translated = await this.runMode(mode, work.map((w) => w.text).join(JOINER));
    let parts = splitBatch(translated, work.length);
    if (!parts) {
      // The separator did not survive (it should); translate one by one rather than guess.
      parts = [];
      for (const w of work) parts.push(await this.runMode(mode, w.text));
    }
    work.forEach((w, i) => (out[w.index] = parts[i]!));
    return out;
  }

  private async runMode(mode: string, input: string): Promise<string> {
    const result = await this.run(['-u', mode], input);
    if (result.code !== 0) {
      throw new TranslatorError('failed', `Apertium mode ${mode} exited with ${result.code}: ${firstLine(result.stderr)}`);
    }
    // A broken pipeline (a missing program in the mode) exits 0 with nothing on stdout.
    if (result.stdout.trim() === '' && input.trim() !== '') {
      throw new TranslatorError('failed', `Apertium mode ${mode} produced no output: ${firstLine(result.stderr)}`);
    }
    return result.stdout;
  }

  private async run(args: string[], input: string): Promise<RunResult> {
    await this.acquire();
    try {
      return await this.spawnOnce(args, input);
    } finally {
      this.release();
    }
  }

  /**
   * The `apertium` script reads its input by opening /dev/stdin, which fails on the socket pairs
   * Node gives children as pipes; so stdin is a private temporary file, unlinked before the program
   * starts (the text never stays on disk under a name).
   */
  private async spawnOnce(args: string[], input: string): Promise<RunResult> {
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
      return await this.spawnWith(args, stdin.fd);
    } finally {
      await stdin.close();
    }
  }

  private spawnWith(args: string[], stdinFd: number): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      const child = spawn(this.binary, args, { stdio: [stdinFd, 'pipe', 'pipe'], detached: true }) as ChildProcessByStdio<null, Readable, Readable>;
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

/** Splits a batch's output at the separators; undefined when their count is not what was sent. */
function splitBatch(output: string, count: number): string[] | undefined {
  const parts = output.split(SEPARATOR);
  if (parts.length !== count) return undefined;
  return parts.map((part, i) => {
    let text = part;
    if (i > 0) text = text.replace(/^\n\n/, '');
    if (i < count - 1) text = text.replace(/\n\n$/, '');
    return text;
  });
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 200) || 'no message';
}
