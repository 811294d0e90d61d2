/**
 * hnswlib as a peer: `hnswlib-node` 3.0.0 (Node bindings of hnswlib 0.8, built from source with
 * node-gyp at install; no prebuilt binaries). Vector search only: hnswlib has no text index.
 *
 * Set up as hnswlib's README tells a user to: space 'cosine' (the binding normalises vectors on
 * insert and query and ranks by 1 − inner product), M 16 and efConstruction 200 (hnswlib's own
 * defaults, the usual recall/build-time middle ground). efSearch 16: on check-peers' corpus the
 * default 10 (= k) gives recall@10 0.957, just over 0.95; 16 gives 0.98–0.99 plain and 0.998–1.0
 * with either tag; 32 gives 1.0 everywhere at ~1.4× the filtered latency.
 *
 * The `tag` filter is the filter callback of `searchKnn`, which hnswlib applies during the graph
 * walk (a pre-filter in effect: other nodes are walked through but never returned). The callback
 * crosses from C++ into JavaScript for every candidate, which is part of what a user of this
 * binding pays, most with a rare tag (a 1 % tag costs ~20–40× an unfiltered query).
 *
 * The package is CommonJS with `module.exports = addon`, so from ES modules only the default
 * import works (the README's `import { HierarchicalNSW }` fails under Node's ESM loader).
 *
 * The package is an optional dependency: a machine without a C++ toolchain (the node:20-slim build
 * stage of the Dockerfile) skips it instead of failing `npm ci`, so it is loaded with a dynamic
 * import, and `hnswlibAvailable()` says whether this machine has it.
 */
import type { PeerChunk, PeerHit, VectorPeer } from './peer.js';

/** The part of hnswlib-node's API this peer uses (declared here: the package may be absent). */
interface HierarchicalNSW {
  initIndex(opts: { maxElements: number; m?: number; efConstruction?: number; randomSeed?: number }): void;
  addPoint(point: number[], label: number): void;
  setEf(ef: number): void;
  searchKnn(query: number[], k: number, filter?: (label: number) => boolean): { distances: number[]; neighbors: number[] };
}

interface HnswlibModule {
  HierarchicalNSW: new (space: 'l2' | 'ip' | 'cosine', dimensions: number) => HierarchicalNSW;
}

/** Through a variable, so TypeScript does not require the optional package to be installed. */
const PACKAGE = 'hnswlib-node';

async function loadHnswlib(): Promise<HnswlibModule | undefined> {
  try {
    const mod = (await import(PACKAGE)) as { default: HnswlibModule };
    return mod.default;
  } catch {
    return undefined;
  }
}

/** Whether hnswlib-node is installed and its native addon loads on this machine. */
export async function hnswlibAvailable(): Promise<boolean> {
  return (await loadHnswlib()) !== undefined;
}

export interface HnswlibPeerOptions {
  m: number;
  efConstruction: number;
  efSearch: number;
}

const DEFAULTS: HnswlibPeerOptions = { m: 16, efConstruction: 200, efSearch: 16 };

export class HnswlibPeer implements VectorPeer {
  private options: HnswlibPeerOptions;
  private index: HierarchicalNSW | undefined;
  private ids: string[] = [];
  /** Label → tag number, so the filter callback is one array read. */
  private tagOf = new Uint16Array(0);
  private readonly tagNumbers = new Map<string, number>();

  constructor(options: Partial<HnswlibPeerOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  get name(): string {
    const o = this.options;
    return `hnswlib-node 3.0 (HNSW M ${o.m} efC ${o.efConstruction} ef ${o.efSearch})`;
  }

  /** Changes efSearch without rebuilding, for a bench that sweeps it. */
  tune(efSearch: number): void {
    this.options = { ...this.options, efSearch };
    this.index?.setEf(efSearch);
  }

  async build(chunks: PeerChunk[], dimensions: number): Promise<void> {
    const hnswlib = await loadHnswlib();
    if (!hnswlib) throw new Error('hnswlib-node is not installed (optional dependency; it needs a C++ toolchain at npm install)');
    const index = new hnswlib.HierarchicalNSW('cosine', dimensions);
    index.initIndex({ maxElements: chunks.length, m: this.options.m, efConstruction: this.options.efConstruction, randomSeed: 100 });
    this.ids = chunks.map((c) => c.id);
    this.tagOf = new Uint16Array(chunks.length);
    chunks.forEach((chunk, label) => {
      index.addPoint(Array.from(chunk.vector), label);
      this.tagOf[label] = this.tagNumber(chunk.tag);
    });
    index.setEf(this.options.efSearch);
    this.index = index;
  }

  vectorSearch(vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]> {
    if (!this.index) return Promise.reject(new Error(`${this.name}: build() first`));
    let filter: ((label: number) => boolean) | undefined;
    if (tag !== undefined) {
      const wanted = this.tagNumbers.get(tag);
      if (wanted === undefined) return Promise.resolve([]);
      const tagOf = this.tagOf;
      filter = (label) => tagOf[label] === wanted;
    }
    const { distances, neighbors } = this.index.searchKnn(Array.from(vector), k, filter);
    return Promise.resolve(neighbors.map((label, i) => ({ id: this.ids[label]!, score: 1 - distances[i]! })));
  }

  close(): Promise<void> {
    this.index = undefined;
    this.ids = [];
    return Promise.resolve();
  }

  private tagNumber(tag: string): number {
    let n = this.tagNumbers.get(tag);
    if (n === undefined) {
      n = this.tagNumbers.size;
      this.tagNumbers.set(tag, n);
    }
    return n;
  }
}
