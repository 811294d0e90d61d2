import assert from 'node:assert/strict';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { OpenAiEmbedder } from '../../core/adapters/openai.embedder.js';
import { DEFAULT_FUSION, LEXICAL_FUSION, reciprocalRankFusion } from '../../core/search/fusion.js';
import { searchOptionsFor } from '../../core/search/search.service.js';

describe('fusion', () => {
  it('adds weight / (k + rank) per list; an item both lists rank rises above one only one ranks first', () => {
    const fused = reciprocalRankFusion([['a', 'b'], ['b', 'c']], { k: 60, weights: [1, 1] });
    assert.deepEqual(fused.map((f) => f.id), ['b', 'a', 'c']);
    assert.equal(fused[0]!.score, 1 / 62 + 1 / 61);
    const keywordHeavy = reciprocalRankFusion([['a', 'b'], ['b', 'c']], { k: 60, weights: [1, 4] });
    assert.deepEqual(keywordHeavy.map((f) => f.id), ['b', 'c', 'a'], 'weights scale each list');
    assert.deepEqual(reciprocalRankFusion([['x'], ['y']], { k: 60, weights: [1, 1] }).map((f) => f.id), ['x', 'y'], 'equal scores by id');
  });

  it('scales a list’s weight item by item where item weights are given', () => {
    const fused = reciprocalRankFusion([['a', 'b'], ['c', 'b']], { k: 5, weights: [1, 0.5] }, [[0.25, 1], undefined]);
    assert.deepEqual(
      fused.map((f) => [f.id, f.score]),
      [
        ['b', 1 / 7 + 0.5 / 7],
        ['c', 0.5 / 6],
        ['a', 0.25 / 6],
      ],
    );
  });

  it('fuses the built-in lexical embedder with the weights measured for it, any other embedder with equal weights', () => {
    assert.deepEqual(searchOptionsFor(new LexicalEmbedder()).fusion, LEXICAL_FUSION);
    const openai = new OpenAiEmbedder({ baseUrl: 'http://127.0.0.1:9', model: 'text-embedding-3-small' });
    assert.deepEqual(searchOptionsFor(openai).fusion, DEFAULT_FUSION);
    assert.deepEqual(DEFAULT_FUSION.weights, [1, 1]);
  });
});
