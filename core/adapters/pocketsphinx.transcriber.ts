import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AudioSegment, type Transcriber, TranscriberError } from '../ports/transcriber.js';
import { ProgramError, runProgram } from '../shared/run-program.js';
import type { Language } from '../translation/translation.schema.js';

export interface PocketsphinxOptions {
  /** `pocketsphinx_continuous` from Debian's pocketsphinx package. */
  binary: string;
  /** An acoustic model, language model and dictionary (Debian's pocketsphinx-en-us: /usr/share/pocketsphinx/model/en-us). */
  modelDir: string;
  timeoutMs: number;
}

/**
 * The local engine: CMU PocketSphinx with its US English model, installed from Debian's packages
 * and run as a program per segment; nothing is downloaded. It serves English only.
 */
export class PocketsphinxTranscriber implements Transcriber {
  readonly id = 'pocketsphinx';
  readonly languages: readonly Language[] = ['en'];
  readonly detectsLanguage = false;

  constructor(private readonly options: PocketsphinxOptions) {}

  private get model() {
    const dir = this.options.modelDir;
    return { hmm: path.join(dir, 'en-us'), lm: path.join(dir, 'en-us.lm.bin'), dict: path.join(dir, 'cmudict-en-us.dict') };
  }

  async healthy(): Promise<boolean> {
    try {
      const { hmm, lm, dict } = this.model;
      await Promise.all([access(hmm), access(lm), access(dict)]);
      // Without arguments the program prints its usage and exits; what matters is that it runs.
      await runProgram(this.options.binary, ['-logfn', '/dev/null'], { timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
      return true;
    } catch {
      return false;
    }
  }

  async transcribe(segment: AudioSegment, language: Language | 'auto', signal?: AbortSignal): Promise<string> {
    if (language !== 'en' && language !== 'auto') throw new TranscriberError('rejected', `PocketSphinx does not transcribe ${language}.`);
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-sphinx-'));
    try {
      const file = path.join(dir, 'segment.wav');
      await writeFile(file, segment.wav);
      const { hmm, lm, dict } = this.model;
      const result = await runProgram(
        this.options.binary,
        ['-infile', file, '-hmm', hmm, '-lm', lm, '-dict', dict, '-logfn', '/dev/null'],
        { timeoutMs: this.options.timeoutMs, maxOutputBytes: 1 << 20, signal },
      );
      if (result.code !== 0) throw new TranscriberError('unavailable', `PocketSphinx failed (exit code ${result.code}).`);
      // One line per utterance it heard.
      return result.stdout.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
    } catch (error) {
      if (error instanceof TranscriberError) throw error;
      if (error instanceof ProgramError && error.reason === 'aborted') throw error;
      throw new TranscriberError('unavailable', error instanceof Error ? error.message : 'PocketSphinx failed.', { cause: error });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
