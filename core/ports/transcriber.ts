import type { Language } from '../translation/translation.schema.js';

/** One stretch of decoded audio: 16 kHz mono 16-bit PCM in a WAV container. */
export interface AudioSegment {
  index: number;
  startSeconds: number;
  durationSeconds: number;
  wav: Buffer;
}

export interface TranscribedSegment {
  startSeconds: number;
  endSeconds: number;
  text: string;
}

/** Why an engine could not transcribe: `unavailable` may pass with a retry; `rejected` will not. */
export class TranscriberError extends Error {
  override name = 'TranscriberError';
  constructor(
    readonly code: 'unavailable' | 'rejected' | 'invalid_response',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Speech to text, one segment at a time (so a job advances and resumes segment by segment). An
 * engine names the languages it serves; `auto` is served when the engine detects the language itself.
 */
export interface Transcriber {
  readonly id: string;
  readonly languages: readonly Language[];
  readonly detectsLanguage: boolean;
  /** Whether the engine can run now (its program and model are there, its server answers). */
  healthy(): Promise<boolean>;
  transcribe(segment: AudioSegment, language: Language | 'auto', signal?: AbortSignal): Promise<string>;
}

/** What probing an audio file tells before anything is queued. */
export interface ProbedAudio {
  durationSeconds: number;
  format: string;
}

/** Measures and decodes audio files (WAV, MP3, OGG/Opus, FLAC, M4A and whatever else the tool reads). */
export interface AudioDecoder {
  /** Undecodable input throws an `AudioDecodeError`. */
  probe(audio: Buffer): Promise<ProbedAudio>;
  /** The whole audio as 16 kHz mono signed 16-bit little-endian PCM. */
  decode(audio: Buffer, signal?: AbortSignal): Promise<Buffer>;
  healthy(): Promise<boolean>;
}

export class AudioDecodeError extends Error {
  override name = 'AudioDecodeError';
}
