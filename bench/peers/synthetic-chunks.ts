/**
 * Seeded synthetic chunks for checking the peers: clustered dense vectors with short texts whose
 * words follow the clusters, and tags for filtered search.
 *
 * Real sentence embeddings are not uniform in their 384 dimensions: they lie near a space of a few
 * dozen dimensions and clump by topic. So each vector is a random linear map of a point in a
 * 24-dimension latent space (a topic centre plus a spread around it), plus a little isotropic
 * noise, normalised. Uniform random vectors would make every approximate index look worse than it
 * does on real data (all neighbours nearly equidistant), and one tight cluster per topic would
 * make it look better. A chunk's text draws most of its words from its topic's words, so full-text
 * and vector search agree often but not always, as on real text.
 */
import { seededRandom } from '../../core/shared/seeded-random.js';
import type { PeerChunk } from './peer.js';

const LATENT = 24;
/** Per-dimension isotropic noise; the latent part has a standard deviation of about 11 per dimension. */
const NOISE = 3;

export interface SyntheticQuery {
  text: string;
  vector: Float32Array;
}

export interface SyntheticSet {
  chunks: PeerChunk[];
  queries: SyntheticQuery[];
}

export interface SyntheticOptions {
  chunks: number;
  queries: number;
  dimensions: number;
  topics: number;
  seed: number;
}

const SYLLABLES = 'ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu'.split(' ');

/**
 * Chunks with tags 'p10' (10 % of chunks), 'p01' (1 %) and 'rest', and queries drawn like chunks
 * (from the same topics, not copies of chunks).
 */
export function syntheticSet(options: SyntheticOptions): SyntheticSet {
  const random = seededRandom(options.seed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const { dimensions } = options;

  const map = Float32Array.from({ length: dimensions * LATENT }, gaussian);
  const centres = Array.from({ length: options.topics }, () => Float64Array.from({ length: LATENT }, () => 2 * gaussian()));
  const word = (): string => Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(SYLLABLES)).join('');
  const common = Array.from({ length: 400 }, word);
  const topicWords = centres.map(() => Array.from({ length: 12 }, word));

  const vector = (topic: number): Float32Array => {
    const centre = centres[topic]!;
    const z = Float64Array.from(centre, (c) => c + gaussian());
    const v = new Float32Array(dimensions);
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      let x = NOISE * gaussian();
      for (let l = 0; l < LATENT; l++) x += map[d * LATENT + l]! * z[l]!;
      v[d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dimensions; d++) v[d]! /= norm;
    return v;
  };
  const text = (topic: number, words: number, topical: number): string =>
    Array.from({ length: words }, () => (random() < topical ? pick(topicWords[topic]!) : pick(common))).join(' ');

  const chunks: PeerChunk[] = [];
  for (let i = 0; i < options.chunks; i++) {
    const topic = Math.floor(random() * options.topics);
    const r = random();
    const tag = r < 0.01 ? 'p01' : r < 0.11 ? 'p10' : 'rest';
    chunks.push({ id: `c${i}`, text: text(topic, 8 + Math.floor(random() * 8), 0.4), vector: vector(topic), tag });
  }
  const queries: SyntheticQuery[] = [];
  for (let i = 0; i < options.queries; i++) {
    const topic = Math.floor(random() * options.topics);
    queries.push({ text: text(topic, 3, 0.8), vector: vector(topic) });
  }
  return { chunks, queries };
}

/** Exact top k by cosine (the vectors are unit length, so a dot product), in a plain loop. */
export function exactTopK(chunks: readonly PeerChunk[], query: Float32Array, k: number, tag?: string): string[] {
  const top: { id: string; score: number }[] = [];
  for (const chunk of chunks) {
    if (tag !== undefined && chunk.tag !== tag) continue;
    const v = chunk.vector;
    let score = 0;
    for (let d = 0; d < v.length; d++) score += v[d]! * query[d]!;
    if (top.length < k || score > top[top.length - 1]!.score) {
      let at = top.length;
      while (at > 0 && top[at - 1]!.score < score) at--;
      top.splice(at, 0, { id: chunk.id, score });
      if (top.length > k) top.pop();
    }
  }
  return top.map((t) => t.id);
}
