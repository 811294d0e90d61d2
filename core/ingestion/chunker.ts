/**
 * Splits document text into retrieval chunks. Boundaries are chosen in order of preference:
 * paragraph (blank line), sentence (`Intl.Segmenter`), word (whitespace), and a hard cut for an
 * unbroken run. Consecutive chunks overlap by the last whole sentences of the previous chunk
 * (whole words when its last sentence is too long). Deterministic, and linear in the input.
 */

export interface ChunkingOptions {
  /** Chunks are filled up to about this many characters. */
  targetChars: number;
  /** At most this many characters of the previous chunk's tail are repeated at a chunk's start. */
  overlapChars: number;
  /** Hard upper bound on a chunk's length; a single sentence may exceed the target up to here. */
  maxChars: number;
}

/**
 * ~1000 characters is 150-250 words: narrow enough for a match to point at one passage, wide
 * enough to carry its context. 2000 keeps a long sentence whole while staying near the
 * 512-token input of common multilingual embedders. 150 of overlap is one or two sentences, so a
 * fact that straddles a boundary is still found from either side.
 */
export const DEFAULT_CHUNKING: ChunkingOptions = { targetChars: 1000, overlapChars: 150, maxChars: 2000 };

export interface TextChunk {
  /** Position of the chunk in the document, 0..n-1. */
  index: number;
  /** The chunk text: `text.slice(start, end)` with line breaks normalised and blank-line runs collapsed. */
  content: string;
  /** Offset of the chunk's first character in the input. */
  start: number;
  /** Offset just after the chunk's last character in the input. */
  end: number;
}

/** `paragraph` and `overlap` pieces may hold several sentences; the others hold at most one. */
type PieceKind = 'paragraph' | 'sentence' | 'word' | 'overlap';

/** A span of the normalised text that is never split further. */
interface Piece {
  start: number;
  end: number;
  kind: PieceKind;
  /** Whether a sentence begins at `start`, which makes it a candidate overlap start. */
  sentenceStart: boolean;
}

// Sentence rules come from ICU's root rules for all eight languages; the locale is pinned so the
// result does not depend on the host's default locale.
const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

// The segmenter's iterator slows down quadratically on long inputs, so it only ever sees windows.
const SEGMENT_WINDOW = 1024;
// Boundaries this close to a window's edge may depend on text outside it, so they are re-read.
const WINDOW_MARGIN = 64;

/**
 * Abbreviations (lower case, without the final dot) that ICU takes for a sentence end when a
 * capitalised word or a number follows, e.g. "Dr. Smith", "Sr. García", "гр. София".
 * Words that often end a sentence ("etc.", "usw.", "no.", "me.", "on.") are left out on purpose.
 */
const ABBREVIATIONS = new Set([
  // en
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'gen', 'col', 'capt', 'lt', 'sgt', 'rev', 'fig', 'approx',
  // nl
  'dhr', 'mevr', 'mw', 'drs', 'ir', 'ing', 'blz', 'nr', 'bijv', 'vgl', 'zgn',
  // fr
  'mm', 'mme', 'mlle', 'pr', 'ste', 'cf', 'av', 'bd',
  // de
  'hr', 'hrn', 'fr', 'dipl', 'str', 'bzw', 'ca', 'abs',
  // es
  'sra', 'srta', 'dra', 'ud', 'uds', 'lic', 'avda', 'núm', 'pág',
  // it
  'sig', 'sigg', 'dott', 'dott.ssa', 'avv', 'geom', 'rag', 'sen', 'pag',
  // bg
  'г-н', 'г-жа', 'г-ца', 'д-р', 'проф', 'акад', 'ул', 'бул', 'гр', 'стр',
  // ro
  'dl', 'dna', 'dnul', 'd-l', 'd-na', 'pct',
]);

const LETTER = /\p{L}/u;

/**
 * The chunks of `text` in document order; none for empty or whitespace-only text. Options left
 * out (or undefined) take their default; inconsistent options throw a RangeError.
 */
export function chunkText(text: string, options: Partial<ChunkingOptions> = {}): TextChunk[] {
  const opts: ChunkingOptions = {
    targetChars: options.targetChars ?? DEFAULT_CHUNKING.targetChars,
    overlapChars: options.overlapChars ?? DEFAULT_CHUNKING.overlapChars,
    maxChars: options.maxChars ?? DEFAULT_CHUNKING.maxChars,
  };
  validate(opts);
  const { normalised, toInput } = normalise(text);
  const chunks: TextChunk[] = [];
  let current: Piece[] = [];

  const emit = (): void => {
    const first = current[0];
    const last = current[current.length - 1];
    if (!first || !last) return;
    chunks.push({
      index: chunks.length,
      content: normalised.slice(first.start, last.end),
      start: toInput(first.start),
      end: toInput(last.end - 1) + 1,
    });
  };

  for (const piece of pieces(normalised, opts)) {
    const first = current[0];
    if (!first) {
      current = [piece];
    } else if (piece.end - first.start <= opts.targetChars) {
      current.push(piece);
    } else {
      emit();
      current = [...overlapBefore(normalised, current, piece, opts), piece];
    }
  }
  emit();
  return chunks;
}

function validate(o: ChunkingOptions): void {
  const ok =
    Number.isInteger(o.targetChars) &&
    Number.isInteger(o.overlapChars) &&
    Number.isInteger(o.maxChars) &&
    // Two characters so a surrogate pair always fits in a hard cut.
    o.targetChars >= 2 &&
    o.maxChars >= o.targetChars &&
    o.overlapChars >= 0 &&
    o.overlapChars < o.targetChars;
  if (!ok) {
    throw new RangeError(
      `Invalid chunking options ${JSON.stringify(o)}: need integers with 2 <= targetChars <= maxChars and 0 <= overlapChars < targetChars.`,
    );
  }
}

/**
 * Turns CRLF and CR into LF and collapses every run of blank (or whitespace-only) lines into one
 * blank line. `toInput` maps an offset in the result back to the input; the structure only
 * records where characters were removed, so it stays small for large inputs.
 */
function normalise(text: string): { normalised: string; toInput: (offset: number) => number } {
  const after: number[] = [];
  const removed: number[] = [];
  let removedSoFar = 0;
  const normalised = text.replace(/(?:\r\n?|\n)(?:[ \t]*(?:\r\n?|\n))*/g, (match: string, offset: number) => {
    const replacement = match === '\n' || match === '\r\n' || match === '\r' ? '\n' : '\n\n';
    if (match.length !== replacement.length) {
      removedSoFar += match.length - replacement.length;
      after.push(offset + match.length - removedSoFar);
      removed.push(removedSoFar);
    }
    return replacement;
  });
  const toInput = (offset: number): number => {
    let lo = 0;
    let hi = after.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((after[mid] ?? 0) <= offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + (lo === 0 ? 0 : (removed[lo - 1] ?? 0));
  };
  return { normalised, toInput };
}

/** The document as a sequence of pieces, each at most `maxChars` long, in document order. */
function* pieces(text: string, opts: ChunkingOptions): Generator<Piece> {
  let from = 0;
  while (from < text.length) {
    const separator = text.indexOf('\n\n', from);
    const to = separator === -1 ? text.length : separator;
    const start = skipSpace(text, from, to);
    const end = trimEnd(text, start, to);
    from = separator === -1 ? text.length : separator + 2;
    if (start === end) continue;
    if (end - start <= opts.targetChars) {
      yield { start, end, kind: 'paragraph', sentenceStart: true };
      continue;
    }
    let sentenceFrom = start;
    for (const boundary of [...sentenceBoundaries(text, start, end), end]) {
      const sentenceEnd = trimEnd(text, sentenceFrom, boundary);
      if (sentenceEnd > sentenceFrom) {
        if (sentenceEnd - sentenceFrom <= opts.maxChars) {
          yield { start: sentenceFrom, end: sentenceEnd, kind: 'sentence', sentenceStart: true };
        } else {
          yield* wordPieces(text, sentenceFrom, sentenceEnd, opts.targetChars);
        }
      }
      sentenceFrom = skipSpace(text, boundary, end);
    }
  }
}

/**
 * Splits an overlong sentence into runs of whole words of at most `limit` characters, preferring
 * to end a run at a line break (lists, tables) when one lies in the run's second half. A run of
 * `limit` characters without whitespace is cut hard.
 */
function* wordPieces(text: string, start: number, end: number, limit: number): Generator<Piece> {
  let from = start;
  while (from < end) {
    if (end - from <= limit) {
      yield { start: from, end, kind: 'word', sentenceStart: from === start };
      return;
    }
    const bound = from + limit;
    let cut = bound;
    while (cut > from + limit / 2 && text[cut] !== '\n') cut--;
    if (text[cut] !== '\n') cut = bound;
    while (cut > from && !isSpace(text.charCodeAt(cut))) cut--;
    let pieceEnd: number;
    if (cut > from) {
      pieceEnd = trimEnd(text, from, cut);
    } else {
      cut = bound;
      // Never split a surrogate pair.
      if (isLowSurrogate(text.charCodeAt(cut))) cut--;
      pieceEnd = cut;
    }
    yield { start: from, end: pieceEnd, kind: 'word', sentenceStart: from === start };
    from = skipSpace(text, cut, end);
  }
}

/**
 * The tail of the emitted chunk that the next chunk starts with: whole sentences of at most
 * `overlapChars` where possible, else whole words. It is shortened or dropped so that the next
 * chunk, which starts with `next`, stays within `maxChars`, and it never repeats the whole chunk.
 */
function overlapBefore(text: string, chunk: Piece[], next: Piece, opts: ChunkingOptions): Piece[] {
  const first = chunk[0];
  const last = chunk[chunk.length - 1];
  if (!first || !last || opts.overlapChars === 0) return [];
  const lowest = Math.max(last.end - opts.overlapChars, next.end - opts.maxChars, first.start + 1);
  if (lowest >= last.end) return [];

  let start = -1;
  for (const piece of chunk) {
    if (piece.end <= lowest) continue;
    if (piece.sentenceStart && piece.start >= lowest) {
      start = piece.start;
      break;
    }
    if (piece.kind === 'paragraph' || piece.kind === 'overlap') {
      const from = Math.max(piece.start, lowest - WINDOW_MARGIN);
      const found = sentenceBoundaries(text, from, piece.end).find((b) => b >= lowest);
      if (found !== undefined) {
        start = found;
        break;
      }
    }
  }
  if (start === -1) start = wordStartFrom(text, lowest, last.end);
  if (start === -1) return [];
  return [{ start, end: last.end, kind: 'overlap', sentenceStart: true }];
}

/** The first position at or after `from` (and before `end`) where a word begins, or -1. */
function wordStartFrom(text: string, from: number, end: number): number {
  let i = from;
  if (!isSpace(text.charCodeAt(i - 1))) {
    while (i < end && !isSpace(text.charCodeAt(i))) i++;
  }
  i = skipSpace(text, i, end);
  return i < end ? i : -1;
}

/**
 * Offsets strictly between `start` and `end` where a sentence begins, read in bounded windows.
 * Line breaks inside a paragraph are read as spaces: extracted text (PDF) wraps lines
 * mid-sentence.
 */
function sentenceBoundaries(text: string, start: number, end: number): number[] {
  const boundaries: number[] = [];
  let from = start;
  while (from < end) {
    const windowStart = from;
    const windowEnd = Math.min(end, windowStart + SEGMENT_WINDOW);
    const last = windowEnd === end;
    const window = text.slice(windowStart, windowEnd).replaceAll('\n', ' ');
    const segments = sentenceSegmenter.segment(window);
    // Walking with `containing` is measurably faster than the segments' iterator.
    for (let s = segments.containing(0); s; s = segments.containing(s.index + s.segment.length)) {
      if (s.index === 0) continue;
      const at = windowStart + s.index;
      if (!last && at > windowEnd - WINDOW_MARGIN) break;
      const boundary = realBoundary(text, at, end);
      if (boundary !== -1 && boundary < end && boundary > (boundaries[boundaries.length - 1] ?? start)) {
        boundaries.push(boundary);
      }
      from = at;
    }
    if (last) break;
    // No boundary in this window: continue inside the sentence, keeping enough of the window's
    // tail that a boundary near its edge is read with the text before it.
    if (from === windowStart) from = windowEnd - 2 * WINDOW_MARGIN;
  }
  return boundaries;
}

/**
 * Corrects a boundary reported by ICU: -1 when it follows an abbreviation or an initial
 * ("Dr. Smith", "z. B.", "J. R. R. Tolkien"), and moved past a closing guillemet that French
 * typography sets apart ("« Bonjour. » Puis").
 */
function realBoundary(text: string, at: number, end: number): number {
  let boundary = at;
  const c = text[boundary];
  if (c === '»' || c === '›') boundary = skipSpace(text, boundary + 1, end);
  let i = boundary - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  if (text[i] !== '.') return boundary;
  let j = i;
  // Abbreviations are short; the bound keeps this constant-time on long runs of letters.
  while (j > 0 && i - j < 12 && (LETTER.test(text[j - 1] ?? '') || text[j - 1] === '-' || text[j - 1] === '.')) j--;
  const token = text.slice(j, i).toLowerCase();
  const lastWord = token.slice(token.lastIndexOf('.') + 1);
  const isInitial = lastWord.length === 1 && LETTER.test(lastWord);
  return isInitial || ABBREVIATIONS.has(token) || ABBREVIATIONS.has(lastWord) ? -1 : boundary;
}

function skipSpace(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function trimEnd(text: string, start: number, end: number): number {
  let i = end;
  while (i > start && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

function isSpace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
