import { type AudioSegment, type Transcriber, TranscriberError } from '../ports/transcriber.js';
import type { Language } from '../translation/translation.schema.js';

export interface OpenAiTranscriberOptions {
  /** Server root, e.g. 'http://whisper:8080' or 'https://api.openai.com' (a trailing '/v1' is tolerated). */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** The languages the model serves (Whisper-family models: all eight). */
  languages: readonly Language[];
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * Any OpenAI-compatible `POST /v1/audio/transcriptions` endpoint: whisper.cpp's server,
 * faster-whisper servers, hosted APIs. Each segment is one request; a Whisper-family model
 * detects the language itself when asked for `auto`.
 */
export class OpenAiTranscriber implements Transcriber {
  readonly id: string;
  readonly languages: readonly Language[];
  readonly detectsLanguage = true;
  private readonly root: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OpenAiTranscriberOptions) {
    this.root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.id = `openai:${options.model}`;
    this.languages = options.languages;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  private headers(): Record<string, string> {
    return this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {};
  }

  async healthy(): Promise<boolean> {
    try {
      // Any HTTP answer means the server is up (not every server implements /v1/models).
      await this.fetch(`${this.root}/v1/models`, { headers: this.headers(), signal: AbortSignal.timeout(5_000) });
      return true;
    } catch {
      return false;
    }
  }

  async transcribe(segment: AudioSegment, language: Language | 'auto', signal?: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([segment.wav], { type: 'audio/wav' }), `segment-${segment.index}.wav`);
    form.append('model', this.options.model);
    form.append('response_format', 'json');
    if (language !== 'auto') form.append('language', language);
    const signals = [AbortSignal.timeout(this.options.timeoutMs), ...(signal ? [signal] : [])];
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(`${this.root}/v1/audio/transcriptions`, {
        method: 'POST',
        headers: this.headers(),
        body: form,
        signal: AbortSignal.any(signals),
      });
      text = await response.text();
    } catch (error) {
      throw new TranscriberError('unavailable', 'The transcription server could not be reached or did not answer in time.', { cause: error });
    }
    if (!response.ok) {
      const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
      throw new TranscriberError(retryable ? 'unavailable' : 'rejected', `The transcription server answered HTTP ${response.status}.`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new TranscriberError('invalid_response', 'The transcription server answered with a body that is not JSON.');
    }
    const transcript = (body as { text?: unknown } | null)?.text;
    if (typeof transcript !== 'string') throw new TranscriberError('invalid_response', 'The transcription server answered without a text.');
    return transcript.trim();
  }
}
