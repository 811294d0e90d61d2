import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SAMPLE_RATE } from '../addons/audio-segments.js';
import { type AudioDecoder, AudioDecodeError, type ProbedAudio } from '../ports/transcriber.js';
import { ProgramError, runProgram } from '../shared/run-program.js';

export interface FfmpegAudioDecoderOptions {
  ffmpegBinary: string;
  ffprobeBinary: string;
  /** Longest audio decoded (longer input is cut there): bounds the PCM held in memory. */
  maxSeconds: number;
  timeoutMs: number;
}

/**
 * Audio through ffprobe and ffmpeg (Debian's ffmpeg reads WAV, MP3, OGG/Opus, FLAC, M4A/AAC and
 * more). Input goes through a temporary file, not a pipe: an M4A whose index sits at its end
 * cannot be read from a pipe.
 */
export class FfmpegAudioDecoder implements AudioDecoder {
  constructor(private readonly options: FfmpegAudioDecoderOptions) {}

  async probe(audio: Buffer): Promise<ProbedAudio> {
    return this.withFile(audio, async (file) => {
      const result = await this.run(this.options.ffprobeBinary, [
        '-v', 'error', '-select_streams', 'a:0', '-show_entries', 'format=duration,format_name:stream=codec_type', '-of', 'json', file,
      ], 1024 * 1024);
      let parsed: { format?: { duration?: string; format_name?: string }; streams?: { codec_type?: string }[] };
      try {
        parsed = JSON.parse(result.stdout.toString('utf8')) as typeof parsed;
      } catch {
        throw new AudioDecodeError('The audio could not be read.');
      }
      if (result.code !== 0 || !parsed.streams?.some((s) => s.codec_type === 'audio')) {
        throw new AudioDecodeError('The file holds no audio that can be decoded.');
      }
      const format = parsed.format?.format_name ?? 'unknown';
      let duration = Number(parsed.format?.duration);
      if (!Number.isFinite(duration) || duration <= 0) {
        // Some streams do not declare their length: decode and count.
        duration = (await this.decodeFile(file)).length / (SAMPLE_RATE * 2);
      }
      return { durationSeconds: duration, format };
    });
  }

  async decode(audio: Buffer, signal?: AbortSignal): Promise<Buffer> {
    return this.withFile(audio, (file) => this.decodeFile(file, signal));
  }

  async healthy(): Promise<boolean> {
    try {
      const [a, b] = await Promise.all([
        runProgram(this.options.ffmpegBinary, ['-version'], { timeoutMs: 5_000, maxOutputBytes: 1 << 20 }),
        runProgram(this.options.ffprobeBinary, ['-version'], { timeoutMs: 5_000, maxOutputBytes: 1 << 20 }),
      ]);
      return a.code === 0 && b.code === 0;
    } catch {
      return false;
    }
  }

  private async decodeFile(file: string, signal?: AbortSignal): Promise<Buffer> {
    const maxBytes = this.options.maxSeconds * SAMPLE_RATE * 2;
    const result = await this.run(
      this.options.ffmpegBinary,
      ['-v', 'error', '-nostdin', '-i', file, '-t', String(this.options.maxSeconds), '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', 'pipe:1'],
      maxBytes + SAMPLE_RATE * 2,
      signal,
    );
    if (result.code !== 0 || result.stdout.length === 0) throw new AudioDecodeError('The audio could not be decoded.');
    return result.stdout;
  }

  private async run(binary: string, args: string[], maxOutputBytes: number, signal?: AbortSignal) {
    try {
      return await runProgram(binary, args, { timeoutMs: this.options.timeoutMs, maxOutputBytes, signal });
    } catch (error) {
      if (error instanceof ProgramError && error.reason === 'not_found') throw error;
      if (error instanceof ProgramError && error.reason === 'aborted') throw error;
      throw new AudioDecodeError(`The audio could not be decoded (${error instanceof Error ? error.message : 'unknown error'}).`);
    }
  }

  private async withFile<T>(audio: Buffer, use: (file: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-audio-'));
    try {
      const file = path.join(dir, 'input');
      await writeFile(file, audio);
      return await use(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
