import assert from 'node:assert/strict';
import { occurrences } from '../../core/search/bm25.js';
import { expandQuery } from '../../core/search/feedback.js';

describe('pseudo-relevance feedback (RM3)', () => {
  const chunk = (score: number, analysis: string, counts: Record<string, number>, title: string[] = []) => ({
    score,
    analysis,
    occurrences: new Map(Object.entries(counts).map(([l, n]) => [l, occurrences(title.includes(l) ? 1 : 0, n)])),
  });

  it('weighs the feedback chunks\' words by their share of each chunk and the chunk\'s share of the scores (worked by hand)', () => {
    const expanded = expandQuery(
      [[{ lexeme: 'print' }]],
      [chunk(3, 'english', { print: 1, queue: 2, job: 1 }), chunk(1, 'french', { print: 1, queue: 1 })],
      { documents: 10, terms: 2, queryWeight: 0.5 },
    );
    // P(t|F): print .75 × 1/4 + .25 × 1/2 = .3125; queue .75 × 2/4 + .25 × 1/2 = .5; job .1875 (not kept).
    // Weights in units of λ/|Q| = .5: print 1 + .5 × (.3125 / .8125) / .5; queue .5 × (.5 / .8125) / .5.
    assert.ok(expanded);
    assert.deepEqual(expanded.words, [[{ lexeme: 'print' }], [{ lexeme: 'queue', analyses: ['english', 'french'] }]]);
    assert.equal(expanded.weights.length, 2);
    assert.ok(Math.abs(expanded.weights[0]! - (1 + 0.3125 / 0.8125)) < 1e-12);
    assert.ok(Math.abs(expanded.weights[1]! - 0.5 / 0.8125) < 1e-12);
  });

  it('counts a title as one occurrence, adds to the query word a feedback lexeme is a form of, and uses only the first chunks', () => {
    const expanded = expandQuery(
      [[{ lexeme: 'printer' }, { lexeme: 'print', analyses: ['english'] }], [{ lexeme: 'setup' }]],
      [chunk(2, 'english', { print: 1, tray: 1 }, ['tray']), chunk(1, 'english', { paper: 5 })],
      { documents: 1, terms: 5, queryWeight: 0.8 },
    );
    assert.ok(expanded);
    // One chunk: print 1/3, tray 2/3 (title and text); in units of λ/|Q| = .4, (1 − .8) × share / .4.
    assert.deepEqual(expanded.words.slice(2), [[{ lexeme: 'tray', analyses: ['english'] }]], 'paper, in the second chunk, is not used');
    assert.ok(Math.abs(expanded.weights[0]! - (1 + (0.2 * (1 / 3)) / 0.4)) < 1e-12, 'print is a form of the first word');
    assert.equal(expanded.weights[1], 1, 'a word no feedback lexeme is a form of keeps its weight');
    assert.ok(Math.abs(expanded.weights[2]! - (0.2 * (2 / 3)) / 0.4) < 1e-12);
  });

  it('gives nothing without words, chunks or scores', () => {
    const options = { documents: 5, terms: 5, queryWeight: 0.5 };
    assert.equal(expandQuery([], [chunk(1, 'english', { a: 1 })], options), null);
    assert.equal(expandQuery([[{ lexeme: 'a' }]], [], options), null);
    assert.equal(expandQuery([[{ lexeme: 'a' }]], [chunk(0, 'english', { a: 1 })], options), null);
  });
});
