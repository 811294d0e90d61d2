import type { Bm25Query, Occurrences } from '../../search/bm25.js';

/**
 * An inverted index over the rows of one flat-index segment: for each lexeme, the rows whose
 * tsvector holds it, with its occurrences there (in the title, in the text); and each row's length
 * (its distinct lexemes). It ranks rows by BM25F (Bm25Query) to the same float8 the database's
 * search computes, without reading them: its cost is the query lexemes' postings (a common word's
 * ~50,000 rows at 100k chunks: well under a millisecond), not a heap visit per row.
 */

/** Entries are row × ENTRY + occurrences (9 bits: see Occurrences); up to 8 million rows fit 32 bits. */
const ENTRY_BITS = 9;
const ENTRY = 2 ** ENTRY_BITS;

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
  /** Postings entries walked by the last ranking (what pruning saves; benches and tests read it). */
  entriesWalked = 0;

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
   *
   * A query word's forms (its lexemes in each language's analysis) are walked one list at a time,
   * rarest first (by the most each can weigh: idf × (k1 + 1)). Once the `limit`-th best row known
   * outweighs all that the lists not yet walked could add together, no row they alone hold can
   * reach the top: those lists (the common forms, with the longest postings, even of a word whose
   * other form is rare) are then not walked, only looked up (binary search) for the rows that can
   * still make the top. Every row returned is scored again word by word in the query's order (a
   * word's best form), so scores are the same float8 as the database's and
   * as a walk of every posting (`rankByWalking`), and so is the order.
   */
  rank(
    query: Bm25Query,
    rows: number,
    limit: number,
    accept: (row: number) => boolean,
    tieBreak: (row: number) => string,
  ): RankedRow[] {
    if (!query.lexemes.length || limit < 1) return [];
    const words = this.wordsOf(query);
    // t / (k1 + t) ≤ 1, so a form weighs at most idf × (k1 + 1) in any row.
    const forms = words.flatMap((w, word): FormPostings[] => w.lists.map((l) => ({ ...l, word, bound: l.idf * query.k1Plus1 })));
    if (forms.length >= 2 && forms.every((f) => f.bound > 0 && Number.isFinite(f.bound))) {
      return this.walkPruned(words, forms, query, rows, limit, accept, tieBreak);
    }
    return this.walk(words, query, Int32Array.of(0, rows), limit, accept, tieBreak);
  }

  /**
   * The same ranking by walking every posting of every query lexeme, in the query's word order:
   * what `rank` computes, and what it does for queries it cannot prune (a single word, a weight
   * that is not positive); the reference its tests compare with.
   */
  rankByWalking(
    query: Bm25Query,
    rows: number,
    limit: number,
    accept: (row: number) => boolean,
    tieBreak: (row: number) => string,
  ): RankedRow[] {
    if (!query.lexemes.length || limit < 1) return [];
    return this.walk(this.wordsOf(query), query, Int32Array.of(0, rows), limit, accept, tieBreak);
  }

  /**
   * Walks the words' postings within `runs` (rows `runs[2i]`..`runs[2i + 1]` − 1, ascending) in the
   * query's word order into per-row sums, which are the scores, and keeps the `limit` best
   * accepted rows.
   */
  private walk(
    words: readonly QueryWordPostings[],
    query: Bm25Query,
    runs: Int32Array,
    limit: number,
    accept: (row: number) => boolean,
    tieBreak: (row: number) => string,
  ): RankedRow[] {
    this.reserveScratch(runs.length ? runs[runs.length - 1]! : 0);
    this.entriesWalked = 0;
    const { sums } = this;
    const touched: number[] = [];
    for (const word of words) this.walkWord(word.lists, query, runs, touched);
    const top = new TopRows(limit, tieBreak);
    for (const row of touched) {
      const sum = sums[row]!;
      sums[row] = 0;
      if (accept(row)) top.offer(row, sum);
    }
    return top.sorted();
  }

  /**
   * `rank`'s walk: each form's list on its own, the heaviest first (by the most it can weigh), its
   * weight added to the rows holding it. A row's sum is then at least what the forms walked add to
   * its score (a word counts its best form; the sum, every form it holds). Once the `limit`-th best
   * score known for sure (the rows of the best sums scored exactly) outweighs what the lists not yet
   * walked could add together (per word, its heaviest form among them), no row they alone hold can
   * make the top, and they are not walked. The rows whose sum plus that could still make it are
   * scored exactly, word by word in the query's order.
   */
  private walkPruned(
    words: readonly QueryWordPostings[],
    forms: ReadonlyArray<FormPostings>,
    query: Bm25Query,
    rows: number,
    limit: number,
    accept: (row: number) => boolean,
    tieBreak: (row: number) => string,
  ): RankedRow[] {
    this.reserveScratch(rows);
    this.entriesWalked = 0;
    const { sums } = this;
    const touched: number[] = [];
    const whole = Int32Array.of(0, rows);
    const order = [...forms].sort((a, b) => b.bound - a.bound || a.word - b.word);
    // What the lists from the j-th on could add to a row at most: each word's heaviest form among them.
    const rest = new Float64Array(order.length + 1);
    const heaviest = new Float64Array(words.length);
    for (let j = order.length - 1; j >= 0; j--) {
      const { word, bound } = order[j]!;
      const more = Math.max(0, bound - heaviest[word]!);
      heaviest[word] = Math.max(heaviest[word]!, bound);
      rest[j] = rest[j + 1]! + more;
    }
    let walked = 0;
    let walkedBound = 0;
    let threshold = 0;
    let known = false;
    for (; walked < order.length; walked++) {
      // Sums cannot yet pass what the lists left could add: no need to look.
      if (walked > 0 && rest[walked]! < walkedBound) {
        threshold = this.kthScore(touched, limit, accept, words, query);
        known = true;
        // A margin for the order of the additions (sums here are in another order than scores).
        if (rest[walked]! < threshold * (1 - PRUNING_MARGIN)) break;
      }
      const form = order[walked]!;
      this.walkWord([form], query, whole, touched);
      walkedBound += form.bound;
      known = false;
    }
    if (!known) threshold = this.kthScore(touched, limit, accept, words, query);
    const unwalked = rest[walked]!;
    const top = new TopRows(limit, tieBreak);
    const least = threshold * (1 - PRUNING_MARGIN);
    for (const row of touched) {
      const sum = sums[row]!;
      sums[row] = 0;
      // Most rows touched cannot make the top: the cheap test first.
      if (sum + unwalked < least) continue;
      if (!accept(row)) continue;
      top.offer(row, this.score(row, words, query));
    }
    return top.sorted();
  }

  /**
   * The same ranking over only the rows in `runs` (rows `runs[2i]`..`runs[2i + 1]` − 1, ascending,
   * not overlapping): each list is walked within the runs only, a binary search to each run's
   * start; cheaper than walking the lists whole when a filter passes a small share of the rows
   * (`prefersRuns` says when). Scores are the walk's to the last bit: the words are added in the
   * query's order, as `rankByWalking` adds them.
   */
  rankRuns(query: Bm25Query, runs: Int32Array, limit: number, tieBreak: (row: number) => string): RankedRow[] {
    if (!query.lexemes.length || limit < 1 || !runs.length) return [];
    return this.walk(this.wordsOf(query), query, runs, limit, () => true, tieBreak);
  }

  /**
   * Whether walking the query's lists within `runs` (holding `passing` of `rows` rows) costs less
   * than half of walking them whole (what pruning a whole walk usually saves at most): for each
   * list, a binary search per run and the share of its entries in the runs, or (a short list,
   * many runs) the whole list.
   */
  prefersRuns(query: Bm25Query, runs: Int32Array, passing: number, rows: number): boolean {
    const share = rows > 0 ? passing / rows : 1;
    let entries = 0;
    let withinRuns = 0;
    for (const { lexeme } of query.lexemes) {
      const length = this.lists.get(lexeme)?.length ?? 0;
      entries += length;
      const searches = (runs.length / 2) * (1 + Math.log2(length));
      if (length) withinRuns += searches < length ? searches + length * share : length;
    }
    return withinRuns * 2 < entries;
  }

  /** The query's words in its order, each with its lexemes' postings. */
  private wordsOf(query: Bm25Query): QueryWordPostings[] {
    const words: QueryWordPostings[] = [];
    for (const { lexeme, word, idf } of query.lexemes) {
      let last = words[words.length - 1];
      if (last?.word !== word) {
        last = { word, lists: [] };
        words.push(last);
      }
      const list = this.lists.get(lexeme);
      if (!list) continue;
      last.lists.push({ list, idf });
    }
    return words.filter((w) => w.lists.length);
  }

  private reserveScratch(rows: number): void {
    if (this.sums.length >= rows) return;
    const size = Math.max(rows, this.sums.length * 2);
    this.sums = new Float64Array(size);
    this.best = new Float64Array(size);
  }

  /**
   * Adds a word's weight in each row of `runs` holding it (its best form's) to the row's sum; new
   * rows join `touched`.
   */
  private walkWord(lists: QueryWordPostings['lists'], query: Bm25Query, runs: Int32Array, touched: number[]): void {
    const { sums, best, rowLexemes } = this;
    // A word of one positive form adds its weight straight to the sums (the best of one form is
    // itself); a word of several keeps each row's best form first (`best`, then `wordRows`).
    const direct = lists.length === 1 && lists[0]!.idf > 0;
    const wordRows: number[] = [];
    let idf = 0;
    let first = true;
    const add = (entry: number) => {
      // Entries are below 2³² (see ENTRY).
      const row = entry >>> ENTRY_BITS;
      const weight = query.weigh(idf, entry & (ENTRY - 1), rowLexemes[row]!);
      if (direct) {
        const sum = sums[row]!;
        if (sum === 0) touched.push(row);
        sums[row] = sum + weight;
      } else if (first) {
        // A form's list holds a row once, and `best` is 0 outside this walk.
        wordRows.push(row);
        if (weight > 0) best[row] = weight;
      } else {
        const was = best[row]!;
        if (was === 0) wordRows.push(row);
        if (weight > was) best[row] = weight;
      }
    };
    for (const lexeme of lists) {
      const { list } = lexeme;
      idf = lexeme.idf;
      if ((runs.length / 2) * (1 + Math.log2(list.length)) < list.length) {
        // Few runs for the list: a binary search to each run's start, then its entries in it.
        let i = 0;
        for (let r = 0; r < runs.length && i < list.length; r += 2) {
          const end = runs[r + 1]! * ENTRY;
          i = lowerBound(list, runs[r]! * ENTRY, i);
          const from = i;
          for (; i < list.length && list[i]! < end; i++) add(list[i]!);
          this.entriesWalked += i - from;
        }
      } else {
        // Many: the list and the runs side by side.
        let r = 0;
        for (const entry of list) {
          while (r < runs.length && runs[r + 1]! * ENTRY <= entry) r += 2;
          if (r >= runs.length) break;
          if (entry >= runs[r]! * ENTRY) add(entry);
        }
        this.entriesWalked += list.length;
      }
      first = false;
    }
    for (const row of wordRows) {
      if (sums[row] === 0) touched.push(row);
      sums[row] = sums[row]! + best[row]!;
      best[row] = 0;
    }
  }

  /**
   * A score the `limit`-th best accepted row reaches for sure (0 when fewer rows are known): the
   * `limit` accepted touched rows of the best sums, scored exactly; the least of their scores.
   */
  private kthScore(touched: readonly number[], limit: number, accept: (row: number) => boolean, words: readonly QueryWordPostings[], query: Bm25Query): number {
    if (touched.length < limit) return 0;
    const { sums } = this;
    // A min-heap of the best `limit` sums, with their rows.
    const heap = new Float64Array(limit);
    const heapRows = new Int32Array(limit);
    let size = 0;
    const swap = (i: number, j: number) => {
      [heap[i], heap[j]] = [heap[j]!, heap[i]!];
      [heapRows[i], heapRows[j]] = [heapRows[j]!, heapRows[i]!];
    };
    for (const row of touched) {
      const sum = sums[row]!;
      if (size === limit && sum <= heap[0]!) continue;
      if (!accept(row)) continue;
      if (size < limit) {
        let i = size++;
        heap[i] = sum;
        heapRows[i] = row;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (heap[parent]! <= heap[i]!) break;
          swap(i, parent);
          i = parent;
        }
      } else {
        heap[0] = sum;
        heapRows[0] = row;
        let i = 0;
        for (;;) {
          const left = 2 * i + 1;
          let least = i;
          if (left < limit && heap[left]! < heap[least]!) least = left;
          if (left + 1 < limit && heap[left + 1]! < heap[least]!) least = left + 1;
          if (least === i) break;
          swap(i, least);
          i = least;
        }
      }
    }
    if (size < limit) return 0;
    let least = Infinity;
    for (const row of heapRows) least = Math.min(least, this.score(row, words, query));
    return least;
  }

  /**
   * A row's score as the walk in the query's word order sums it: each word's best form, word after
   * word; −1 when the row holds none of the query's lexemes.
   */
  private score(row: number, words: readonly QueryWordPostings[], query: Bm25Query): number {
    const length = this.rowLexemes[row]!;
    let sum = 0;
    let held = false;
    for (const { lists } of words) {
      let best = 0;
      for (const { list, idf } of lists) {
        const occ = occurrencesIn(list, row);
        if (occ < 0) continue;
        held = true;
        const weight = query.weigh(idf, occ, length);
        if (weight > best) best = weight;
      }
      if (best > 0) sum = sum + best;
    }
    return held ? sum : -1;
  }
}

/**
 * How much smaller than the `limit`-th best partial sum the most the unwalked words could add must
 * be to leave them unwalked: partial sums are added in another order than the final scores, so
 * they may differ from them in the last bits.
 */
const PRUNING_MARGIN = 1e-9;

/** One form's postings (a lexeme of the query's `word`-th word with postings), with the most it can weigh in a row. */
interface FormPostings {
  list: readonly number[];
  idf: number;
  word: number;
  bound: number;
}

interface QueryWordPostings {
  word: number;
  lists: Array<{ list: readonly number[]; idf: number }>;
}

/**
 * The rows of these lists (each ascending, none shared: an owner's rows) as runs for `rankRuns`:
 * `runs[2i]`..`runs[2i + 1]` − 1, ascending, adjacent ones merged; and how many rows they hold.
 */
export function runsOf(rowLists: Iterable<readonly number[]>): { runs: Int32Array; rows: number } {
  const starts: number[] = [];
  const ends: number[] = [];
  let rows = 0;
  for (const list of rowLists) {
    rows += list.length;
    for (let i = 0; i < list.length; i++) {
      if (i > 0 && list[i] === list[i - 1]! + 1) ends[ends.length - 1]!++;
      else {
        starts.push(list[i]!);
        ends.push(list[i]! + 1);
      }
    }
  }
  const order = Array.from(starts.keys()).sort((a, b) => starts[a]! - starts[b]!);
  const runs: number[] = [];
  for (const i of order) {
    if (runs.length && runs[runs.length - 1] === starts[i]) runs[runs.length - 1] = ends[i]!;
    else runs.push(starts[i]!, ends[i]!);
  }
  return { runs: Int32Array.from(runs), rows };
}

/** The first position from `from` on of an entry at least `value` in a list (ascending); its length when none is. */
function lowerBound(list: readonly number[], value: number, from = 0): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The row's occurrences in a lexeme's postings (rows ascending), or −1 when the row does not hold it. */
function occurrencesIn(list: readonly number[], row: number): number {
  const first = row * ENTRY;
  const at = lowerBound(list, first);
  return at < list.length && list[at]! < first + ENTRY ? list[at]! - first : -1;
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
