import type { Bm25Query, Occurrences } from '../../search/bm25.js';

/**
 * An inverted index over the rows of one flat-index segment: for each lexeme, the rows whose
 * tsvector holds it, with its occurrences there (in the title, in the text); and each row's length
 * (its distinct lexemes). It ranks rows by BM25F (Bm25Query) to the same float8 the database's
 * search computes, without reading them: its cost is the query lexemes' postings (a common word's
 * ~50,000 rows at 100k chunks: well under a millisecond), not a heap visit per row.
 */

/** Entries are row × ENTRY + occurrences (9 bits: see Occurrences); up to 8 million rows fit 32 bits. */
const ENTRY = 512;

export interface RankedRow {
  row: number;
  rank: number;
}

/** Postings as a snapshot keeps them: each lexeme's list, one after the other, in `entries`. */
export interface PostingsState {
  lexemes: string[];
  lengths: Uint32Array;
  /** row × 512 + occurrences. */
  entries: Uint32Array;
  /** Each row's length: its distinct lexemes. */
  rowLexemes: Uint32Array;
}

export class KeywordPostings {
  /** Per lexeme: row × 512 + occurrences, rows ascending. */
  private lists = new Map<string, number[]>();
  /** Each row's length (distinct lexemes), by row. */
  private rowLexemes = new Uint32Array(1024);
  /** Scratch space by row, kept between searches (always zero outside `rank`): sums, a word's best. */
  private sums = new Float64Array(0);
  private best = new Float64Array(0);

  /** A copy of the postings, for a snapshot. */
  exportState(): PostingsState {
    const lexemes = [...this.lists.keys()];
    const lengths = Uint32Array.from(lexemes, (l) => this.lists.get(l)!.length);
    const entries = new Uint32Array(lengths.reduce((n, x) => n + x, 0));
    let at = 0;
    for (const lexeme of lexemes) {
      const list = this.lists.get(lexeme)!;
      entries.set(list, at);
      at += list.length;
    }
    return { lexemes, lengths, entries, rowLexemes: this.rowLexemes.slice() };
  }

  /** Postings restored from a snapshot (`exportState`). */
  static fromState(state: PostingsState): KeywordPostings {
    const postings = new KeywordPostings();
    let at = 0;
    state.lexemes.forEach((lexeme, i) => {
      const length = state.lengths[i]!;
      postings.lists.set(lexeme, Array.from(state.entries.subarray(at, at + length)));
      at += length;
    });
    postings.rowLexemes = state.rowLexemes.slice();
    return postings;
  }

  /** How many rows hold `lexeme` (rows removed since the last compaction included). */
  rowsHolding(lexeme: string): number {
    return this.lists.get(lexeme)?.length ?? 0;
  }

  /** Adds a row's lexemes with their occurrences (rows are added in ascending order). */
  add(row: number, terms: ReadonlyMap<string, Occurrences>): void {
    if (row >= this.rowLexemes.length) {
      const grown = new Uint32Array(Math.max(row + 1, this.rowLexemes.length * 2));
      grown.set(this.rowLexemes);
      this.rowLexemes = grown;
    }
    this.rowLexemes[row] = terms.size;
    for (const [lexeme, occ] of terms) {
      const entry = row * ENTRY + occ;
      const list = this.lists.get(lexeme);
      if (list) list.push(entry);
      else this.lists.set(lexeme, [entry]);
    }
  }

  /**
   * Renumbers rows after a compaction: `moved[old]` is a row's new number, or −1 for a dead row
   * (whose entries go). New numbers keep the live rows' order within each lexeme.
   */
  renumber(moved: Int32Array): void {
    const lists = new Map<string, number[]>();
    for (const [lexeme, list] of this.lists) {
      const kept: number[] = [];
      for (const entry of list) {
        const row = moved[Math.floor(entry / ENTRY)]!;
        if (row >= 0) kept.push(row * ENTRY + (entry % ENTRY));
      }
      if (kept.length) lists.set(lexeme, kept.sort((a, b) => a - b));
    }
    this.lists = lists;
    const rowLexemes = new Uint32Array(this.rowLexemes.length);
    moved.forEach((row, old) => {
      if (row >= 0) rowLexemes[row] = this.rowLexemes[old]!;
    });
    this.rowLexemes = rowLexemes;
  }

  /**
   * The rows holding any of the query's lexemes, with their BM25F score (`query`), best first (equal
   * scores: `tieBreak`, ascending), at most `limit`, among the rows `accept`ed.
   */
  rank(
    query: Bm25Query,
    rows: number,
    limit: number,
    accept: (row: number) => boolean,
    tieBreak: (row: number) => string,
  ): RankedRow[] {
    if (!query.lexemes.length || limit < 1) return [];
    if (this.sums.length < rows) {
      const size = Math.max(rows, this.sums.length * 2);
      this.sums = new Float64Array(size);
      this.best = new Float64Array(size);
    }
    const { sums, best, rowLexemes } = this;
    const touched: number[] = [];
    // Word by word, in the query's order: each row adds the best of the word's lexemes it holds.
    const lexemes = query.lexemes;
    for (let i = 0; i < lexemes.length; ) {
      const word = lexemes[i]!.word;
      const wordRows: number[] = [];
      for (; i < lexemes.length && lexemes[i]!.word === word; i++) {
        const { lexeme, idf } = lexemes[i]!;
        const list = this.lists.get(lexeme);
        if (!list) continue;
        for (const entry of list) {
          const row = Math.floor(entry / ENTRY);
          if (row >= rows) break;
          const weight = query.weigh(idf, entry % ENTRY, rowLexemes[row]!);
          if (best[row] === 0) wordRows.push(row);
          if (weight > best[row]!) best[row] = weight;
        }
      }
      for (const row of wordRows) {
        if (sums[row] === 0) touched.push(row);
        sums[row] = sums[row]! + best[row]!;
        best[row] = 0;
      }
    }
    const top = new TopRows(limit, tieBreak);
    for (const row of touched) {
      const sum = sums[row]!;
      sums[row] = 0;
      if (accept(row)) top.offer(row, sum);
    }
    return top.sorted();
  }
}

/** The `limit` best rows seen: a heap with the worst kept row on top. */
class TopRows {
  private readonly heap: RankedRow[] = [];

  constructor(
    private readonly limit: number,
    private readonly tieBreak: (row: number) => string,
  ) {}

  /** Whether `a` ranks below `b`. */
  private worse(a: RankedRow, b: RankedRow): boolean {
    return a.rank < b.rank || (a.rank === b.rank && this.tieBreak(a.row) > this.tieBreak(b.row));
  }

  offer(row: number, rank: number): void {
    const item = { row, rank };
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push(item);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
      return;
    }
    if (!this.worse(heap[0]!, item)) return;
    heap[0] = item;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      let worst = i;
      if (left < heap.length && this.worse(heap[left]!, heap[worst]!)) worst = left;
      if (left + 1 < heap.length && this.worse(heap[left + 1]!, heap[worst]!)) worst = left + 1;
      if (worst === i) break;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }

  sorted(): RankedRow[] {
    return [...this.heap].sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
  }
}
