import type { FusionOptions } from '../search/fusion.js';

/** Queries and documents may be embedded differently (e5's 'query: ' / 'passage: ' prefixes). */
export type EmbeddingKind = 'query' | 'document';

/** Knowledge bases declare between 1 and 4096 dimensions (spec §Knowledge bases). */
export const MIN_DIMENSIONS = 1;
export const MAX_DIMENSIONS = 4096;

export interface EmbedOptions {
  dimensions: number;
  kind: EmbeddingKind;
}

export interface Embedder {
  /**
   * Stable identifier recorded with every chunk, e.g. 'lexical-v1', 'openai:text-embedding-3-small',
   * 'onnx:multilingual-e5-small'. Changes when vectors would change.
   */
  readonly id: string;
  /**
   * How its ranking fuses with keyword search's, when measured for this embedder (the built-in
   * lexical one); DEFAULT_FUSION (equal weights) otherwise.
   */
  readonly fusion?: FusionOptions;
  /**
   * True when its vectors stand for the text's words as keyword search sees them (the built-in
   * lexical embedder): a chunk that only its vector search returns then holds none of the query's
   * words, and is the nearest of the rest rather than a match.
   */
  readonly lexical?: boolean;
  /** One L2-normalised vector of exactly `dimensions` numbers per text, in order. */
  embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]>;
  /** The text a chunk is embedded as, from its document's title and its own text; unset: `titledPassage`. */
  passageText?(title: string, content: string): string;
}

/**
 * A chunk as most embedders should see it: its document's title, a blank line, then its text. A
 * chunk seldom names what its page is about and the title often does; keyword search weighs the
 * title as a field of every chunk (BM25F), and the vector side sees it too.
 */
export function titledPassage(title: string, content: string): string {
  return `${title}\n\n${content}`;
}

/** The text `embedder` embeds a chunk as (its own `passageText`, else `titledPassage`). */
export function passageText(embedder: Embedder, title: string, content: string): string {
  return embedder.passageText ? embedder.passageText(title, content) : titledPassage(title, content);
}

export type EmbedderErrorCode =
  /** Network failure, timeout, 429 or 5xx, still failing after the retries. */
  | 'unavailable'
  /** The endpoint refused the request (4xx other than 429): wrong model, key or input. */
  | 'rejected'
  /** The endpoint or model answered something that is not a usable embedding. */
  | 'invalid_response'
  /** A local model directory is missing a file or cannot be loaded. */
  | 'model_unavailable';

/**
 * Why embedding failed. Messages name the endpoint, model or directory but never a secret, so they
 * are safe to log and to store as a job's sanitized error.
 */
export class EmbedderError extends Error {
  override name = 'EmbedderError';
  constructor(
    readonly code: EmbedderErrorCode,
    message: string,
    /** HTTP status of the last upstream answer, when there was one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
