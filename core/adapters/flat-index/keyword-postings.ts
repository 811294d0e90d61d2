/**
 * An inverted index over the rows of one flat-index segment: for each lexeme, the rows whose
 * tsvector holds it, with how often. It ranks rows as PostgreSQL's `ts_rank(tsv, query)` does for
 * an OR of lexemes with the default weights and no normalisation, to the same float4 value: each
 * distinct query lexeme a row holds adds 0.1 × Σ 1/i² over its occurrences (i = 1…n) ÷ π²/6, the
 * sum divided by the number of distinct query lexemes. So the in-memory keyword search orders rows
 * exactly as the database's would, without reading them: its cost is the query lexemes' postings
 * (a common word's ~50,000 rows at 100k chunks: well under a millisecond), not a heap visit per row.
 */

/** ts_rank's default weight of a position of weight D, as the float4 it is. */
const WEIGHT_D = Math.fround(0.1);
/** tsvector keeps at most this many positions per lexeme (MAXNUMPOS). */
const MAX_POSITIONS = 256;

/** A lexeme's share of ts_rank for 1…256 occurrences, computed as calc_rank_or does in float4. */
const CONTRIBUTION = (() => {
  const out = new Float64Array(MAX_POSITIONS + 1);
  let sum = 0;
  for (let j = 0; j < MAX_POSITIONS; j++) {
    sum = Math.fround(sum + Math.fround(WEIGHT_D / ((j + 1) * (j + 1))));
    // (wjm + resj - wjm / ((jm + 1) * (jm + 1))) / 1.64493406685 with every weight D: jm = 0.
    out[j + 1] = Math.fround(Math.fround(WEIGHT_D + sum) - WEIGHT_D) / 1.64493406685;
  }
  return out;
})();

/** Orders lexemes as PostgreSQL sorts a tsquery's operands (by bytes, a prefix first): the order ts_rank sums in. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export interface RankedRow {
  row: number;
  rank: number;
}

/** Postings as a snapshot keeps them: each lexeme's list, one after the other, in `entries`. */
export interface PostingsState {
  lexemes: string[];
  lengths: Uint32Array;
  /** row × 256 + (occurrences − 1): fits 32 bits up to 16 million rows. */
  entries: Uint32Array;
}

export class KeywordPostings {
  /** Per lexeme: row × 256 + (occurrences − 1), rows ascending. */
  private lists = new Map<string, number[]>();
  /** Scratch space by row, kept between searches (always zero outside `rank`): sums, word marks, selected rows. */
  private sums = new Float64Array(0);
  private marks = new Int32Array(0);
  private chosen = new Uint8Array(0);

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
    return { lexemes, lengths, entries };
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
    return postings;
  }

  /** How many rows hold `lexeme` (rows removed since the last compaction included). */
  rowsHolding(lexeme: string): number {
    return this.lists.get(lexeme)?.length ?? 0;
  }

  /** Adds a row's lexemes (rows are added in ascending order). */
  add(row: number, counts: ReadonlyMap<string, number>): void {
    for (const [lexeme, count] of counts) {
      const entry = row * 256 + (Math.min(Math.max(count, 1), MAX_POSITIONS) - 1);
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
        const row = moved[Math.floor(entry / 256)]!;
        if (row >= 0) kept.push(row * 256 + (entry % 256));
      }
      if (kept.length) lists.set(lexeme, kept.sort((a, b) => a - b));
    }
    this.lists = lists;
  }

  /**
   * The rows holding any of `lexemes`, with their ts_rank for the OR of them all, best first
   * (equal ranks: `tieBreak`, ascending), at most `limit`, among the rows `accept`ed and, when
   * `groups` are given, `selected` by them (see `select`).
   */
  rank(
    lexemes: readonly string[],
    rows: number,
    limit: number,
    accept: (row: number) => boolean,
    tieBreak: (row: number) => string,
    groups?: ReadonlyArray<ReadonlyArray<readonly string[]>>,
  ): RankedRow[] {
    const distinct = [...new Set(lexemes)].sort(byBytes);
    if (!distinct.length || limit < 1) return [];
    if (this.sums.length < rows) {
      const size = Math.max(rows, this.sums.length * 2);
      this.sums = new Float64Array(size);
      this.marks = new Int32Array(size);
      this.chosen = new Uint8Array(size);
    }
    const chosenRows = groups ? this.select(groups, rows) : null;
    const chosen = this.chosen;
    const sums = this.sums;
    const touched: number[] = [];
    for (const lexeme of distinct) {
      const list = this.lists.get(lexeme);
      if (!list) continue;
      for (const entry of list) {
        const row = Math.floor(entry / 256);
        if (row >= rows) break;
        // Rows the selection left out are not ranked at all (a common word's rows, mostly).
        if (chosenRows && !chosen[row]) continue;
        if (sums[row] === 0) touched.push(row);
        // calc_rank_or's running float4 sum, in its order of lexemes.
        sums[row] = Math.fround(sums[row]! + CONTRIBUTION[(entry % 256) + 1]!);
      }
    }
    const best = new TopRows(limit, tieBreak);
    for (const row of touched) {
      const sum = sums[row]!;
      sums[row] = 0;
      if (accept(row)) best.offer(row, Math.fround(sum / distinct.length));
    }
    if (chosenRows) for (const row of chosenRows) chosen[row] = 0;
    return best.sorted();
  }

  /**
   * Marks in `chosen` the rows holding, for some group, every word of it (a word: any of its
   * lexemes), and returns them. Groups have at most 31 words.
   */
  private select(groups: ReadonlyArray<ReadonlyArray<readonly string[]>>, rows: number): number[] {
    const { marks, chosen } = this;
    const chosenRows: number[] = [];
    for (const group of groups) {
      if (group.length > 31) throw new Error('a word group of more than 31 words');
      const every = 2 ** group.length - 1;
      const marked: number[] = [];
      group.forEach((word, k) => {
        for (const lexeme of new Set(word)) {
          for (const entry of this.lists.get(lexeme) ?? []) {
            const row = Math.floor(entry / 256);
            if (row >= rows) break;
            if (marks[row] === 0) marked.push(row);
            marks[row]! |= 1 << k;
          }
        }
      });
      for (const row of marked) {
        if (marks[row] === every && !chosen[row]) {
          chosen[row] = 1;
          chosenRows.push(row);
        }
        marks[row] = 0;
      }
    }
    return chosenRows;
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
