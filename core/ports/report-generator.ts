import type { Report } from '../addons/report.schema.js';
import type { Language } from '../translation/translation.schema.js';

export interface GeneratedReport {
  report: Report;
  /** What the engine counted (a model's own token counts; estimated words for the built-in engine). */
  inputTokens: number;
  outputTokens: number;
}

export class ReportGeneratorError extends Error {
  override name = 'ReportGeneratorError';
  constructor(
    readonly code: 'unavailable' | 'rejected' | 'invalid_output',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Turns a transcript into a structured report in the transcript's language. */
export interface ReportGenerator {
  readonly id: string;
  healthy(): Promise<boolean>;
  generate(transcript: string, language: Language | null, signal?: AbortSignal): Promise<GeneratedReport>;
}
