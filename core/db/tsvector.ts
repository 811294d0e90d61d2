/**
 * A tsvector's text form as PostgreSQL writes it (`tsv::text`): `'lexeme':1,4 'other':2B`. Each
 * lexeme is quoted, with quotes and backslashes inside it doubled; its positions follow a colon,
 * each with a weight letter unless it is D. Returns each lexeme with how many positions it has (1
 * for a lexeme stored without positions, as ts_rank counts it), which is all an in-memory ranking
 * needs: Lore's tsvectors are built by to_tsvector, so every position has the default weight D.
 */
export function tsvectorCounts(text: string): Map<string, number> {
  const out = new Map<string, number>();
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
    let count = 1;
    if (text[i] === ':') {
      for (i++; i < n && text[i] !== ' '; i++) if (text[i] === ',') count++;
    }
    out.set(lexeme, count);
  }
  return out;
}
