import assert from 'node:assert/strict';
import { Bm25Query } from '../../core/search/bm25.js';
import { nearness, proximityScore } from '../../core/search/proximity.js';
import { tsvectorPositions } from '../../core/db/tsvector.js';

describe('term proximity', () => {
  const statistics = {
    chunks: 100,
    chunksByAnalysis: new Map(),
    lexemes: 1000,
    holding: new Map([
      ['copi', 10],
      ['file', 40],
      ['directori', 20],
    ]),
  };
  const parameters = { k1: 0.9, b: 0.4, titleWeight: 7 };
  const query = new Bm25Query([[{ lexeme: 'copi' }], [{ lexeme: 'file' }], [{ lexeme: 'directori' }]], statistics, parameters);
  const idf = (holding: number) => Math.log(1 + (100 - holding + 0.5) / (holding + 0.5));
  const saturate = (f: number) => (f * 1.9) / (0.9 + f);

  it('sums 1/d over the first list\'s positions whose nearest in the second is within the window', () => {
    assert.equal(nearness([1, 5], [2, 9], 3), 1 + 1 / 3);
    assert.equal(nearness([1, 5], [2, 9], 2), 1, 'd 3 is outside a window of 2');
    assert.equal(nearness([4], [4], 5), 0, 'the same position is not a pair');
    assert.equal(nearness([10], [1, 2, 12, 30], 5), 1 / 2, 'the nearest is after the position');
    assert.equal(nearness([], [1], 5), 0);
  });

  it('adds, per pair of query words the chunk holds, the rarer word\'s idf times the saturated nearness (worked by hand)', () => {
    // "copy files and directories": copi 1, file 2, directori 4.
    const positions = tsvectorPositions("'copi':1 'file':2 'directori':4");
    const want = idf(40) * saturate(1) + idf(20) * saturate(1 / 3) + idf(40) * saturate(1 / 2);
    assert.ok(Math.abs(proximityScore(query, positions, { weight: 1, window: 5 }) - want) < 1e-12);
    assert.ok(Math.abs(proximityScore(query, positions, { weight: 0.5, window: 5 }) - want / 2) < 1e-12, 'the weight scales it');
  });

  it('gives nothing to a chunk whose query words stand far apart or that holds only one of them', () => {
    assert.equal(proximityScore(query, tsvectorPositions("'copi':1 'file':40"), { weight: 1, window: 8 }), 0);
    assert.equal(proximityScore(query, tsvectorPositions("'copi':1,2,3 'other':4"), { weight: 1, window: 8 }), 0);
  });

  it('takes a word\'s positions from all its forms and the idf of its rarest form', () => {
    const forms = new Bm25Query([[{ lexeme: 'file' }, { lexeme: 'copi' }], [{ lexeme: 'directori' }]], statistics, parameters);
    // The first word stands at 1 (copi) and 9 (file); directori at 2.
    const got = proximityScore(forms, tsvectorPositions("'copi':1 'directori':2 'file':9"), { weight: 1, window: 3 });
    assert.ok(Math.abs(got - Math.min(idf(10), idf(20)) * saturate(1)) < 1e-12);
  });

  it('reads a tsvector\'s positions, weight letters dropped', () => {
    const positions = tsvectorPositions("'ping':1A,2,3 'it''s':4 'bare'");
    assert.deepEqual(positions.get('ping'), [1, 2, 3]);
    assert.deepEqual(positions.get("it's"), [4]);
    assert.deepEqual(positions.get('bare'), []);
    assert.deepEqual([...tsvectorPositions("'ping':1A,2,3 'it''s':4 'bare'", new Set(["it's", 'pong']))], [["it's", [4]]], 'only the lexemes asked for');
  });
});
