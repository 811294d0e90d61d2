import { type Occurrences, occurrences } from '../search/bm25.js';

/**
 * Reads a tsvector's text form as PostgreSQL writes it (`tsv::text`): `'lexeme':1,4 'other':2A`.
 * Each lexeme is quoted, with quotes and backslashes inside it doubled; its positions follow a
 * colon, each with a weight letter unless it is D. Calls `visit` with each lexeme and the span of
 * its positions' text (`from` = `to` when it has none).
 */
function readTsvector(text: string, visit: (lexeme: string, from: number, to: number) => void): void {
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    if (text[i] !== "'") throw new Error(`tsvector text: expected a quote at ${i}`);
    let lexeme = '';
    let start = ++i;
    for (;;) {
      if (i >= n) throw new Error('tsvector text: unterminated lexeme');
      const c = text[i];
      if (c === '\\' || (c === "'" && text[i + 1] === "'")) {
        // A doubled quote or backslash stands for one.
        lexeme += text.slice(start, i + 1);
        i += 2;
        start = i;
      } else if (c === "'") {
        lexeme += text.slice(start, i);
        i++;
        break;
      } else i++;
    }
    let from = i;
    if (text[i] === ':') {
      from = ++i;
      while (i < n && text[i] !== ' ') i++;
    }
    visit(lexeme, from, i);
  }
}

/**
 * Each lexeme's occurrences, which is all the in-memory ranking needs (Bm25Query): positions of
 * weight A are the document title's (a chunk's tsvector is its title's, weight A, then its text's,
 * weight D), the others the text's (a lexeme stored without positions counts once, in the text).
 */
export function tsvectorOccurrences(text: string): Map<string, Occurrences> {
  const out = new Map<string, number>();
  readTsvector(text, (lexeme, from, to) => {
    let positions = 1;
    let inTitle = 0;
    for (let i = from; i < to; i++) {
      if (text[i] === ',') positions++;
      else if (text[i] === 'A') inTitle++;
    }
    out.set(lexeme, occurrences(inTitle, positions - inTitle));
  });
  return out;
}

/**
 * Each lexeme's positions (of `only` these lexemes, if given), ascending, weight letters dropped (a
 * chunk's title's come first, then its text's); a lexeme stored without positions has none.
 */
export function tsvectorPositions(text: string, only?: ReadonlySet<string>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  readTsvector(text, (lexeme, from, to) => {
    if (only && !only.has(lexeme)) return;
    const positions: number[] = [];
    if (to > from) for (const p of text.slice(from, to).split(',')) positions.push(parseInt(p, 10));
    out.set(lexeme, positions);
  });
  return out;
}
