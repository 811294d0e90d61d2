import assert from 'node:assert/strict';
import { chrfStatistics, corpusChrf, sentenceChrf } from '../../bench/chrf.js';

describe('chrF (bench/chrf.ts)', () => {
  it('gives the scores sacreBLEU gives (chrF2, n=6, whitespace removed)', () => {
    // Reference values from sacreBLEU 2.x (CHRF() defaults), as quoted in Hugging Face's chrF metric card.
    const one = sentenceChrf(
      'The relationship between Obama and Netanyahu is not exactly friendly.',
      'The ties between Obama and Netanyahu are not particularly friendly.',
    );
    assert.ok(Math.abs(one - 61.576379378113785) < 1e-9, String(one));
    const corpus = corpusChrf(
      ['The relationship between cats and dogs is not exactly friendly.', 'a good bookshop is just a genteel black hole that knows how to read.'],
      ['The relationship between dogs and cats is not exactly friendly.', 'A good bookshop is just a genteel Black Hole that knows how to read.'],
    );
    assert.ok(Math.abs(corpus - 84.64214891738334) < 1e-9, String(corpus));
  });

  it('is 100 for an identical text, 0 for one with no character in common or an empty hypothesis', () => {
    assert.equal(sentenceChrf('Élan vital, über alles', 'Élan vital, über alles'), 100);
    assert.equal(sentenceChrf('aaaa', 'bbbb'), 0);
    assert.equal(sentenceChrf('', 'bbbb'), 0);
  });

  it('ignores whitespace and counts code points, clipping matches to the reference', () => {
    assert.deepEqual(chrfStatistics('a b', 'ab', 2), chrfStatistics('ab', 'ab', 2));
    const [unigrams] = chrfStatistics('😀😀😀', '😀', 1);
    assert.deepEqual(unigrams, { hypothesis: 3, reference: 1, matched: 1 });
  });
});
