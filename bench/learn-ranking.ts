/**
 * Learns a linear second-stage ranking over the features `--features` writes (bench/ranking-features.ts)
 * by coordinate ascent on nDCG@10 (Metzler and Croft, 2007), starting from the product's fusion
 * (RRF k 5, vector:keyword 1:4, which is the weights kw5 4, vec5 1), and reports it on each
 * collection it was not trained on.
 *
 * Usage: npx tsx bench/learn-ranking.ts --train help.jsonl[,packages.jsonl] --test packages.jsonl [--features kw5,vec5,…]
 *          [--rounds 6] [--model FILE] | --apply FILE --test manpages.jsonl
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { mean, pairedStandardError, rankingScore } from './support.js';
import { FEATURE_NAMES } from './ranking-features.js';

interface Line {
  collection: string;
  language: string;
  relevant: string[];
  candidates: Array<{ page: string; f: number[] }>;
}
interface Query {
  group: string;
  relevant: Set<string>;
  pages: string[];
  f: Float64Array[];
}

const { values } = parseArgs({
  options: {
    train: { type: 'string' },
    test: { type: 'string' },
    features: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    model: { type: 'string' },
    apply: { type: 'string' },
  },
});

async function load(files: string | undefined): Promise<Query[]> {
  const out: Query[] = [];
  for (const file of (files ?? '').split(',').filter(Boolean)) {
    for (const raw of (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean)) {
      const l = JSON.parse(raw) as Line;
      out.push({
        group: `${l.collection} ${l.language}`,
        relevant: new Set(l.relevant),
        pages: l.candidates.map((c) => c.page),
        f: l.candidates.map((c) => Float64Array.from(c.f)),
      });
    }
  }
  return out;
}

const K = 10;
function ndcgOf(q: Query, w: Float64Array): number {
  const scores = q.f.map((f, i) => {
    let s = 0;
    for (let j = 0; j < w.length; j++) s += w[j]! * f[j]!;
    return { s, i };
  });
  scores.sort((a, b) => b.s - a.s || a.i - b.i);
  const pages: string[] = [];
  for (const { i } of scores.slice(0, K)) if (!pages.includes(q.pages[i]!)) pages.push(q.pages[i]!);
  return rankingScore(pages, q.relevant, K).ndcg;
}
const meanNdcg = (qs: Query[], w: Float64Array): number => mean(qs.map((q) => ndcgOf(q, w)));

function byGroup(qs: Query[], w: Float64Array): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const q of qs) {
    const scores = out.get(q.group) ?? [];
    if (!out.has(q.group)) out.set(q.group, scores);
    scores.push(ndcgOf(q, w));
  }
  return out;
}

const names = [...FEATURE_NAMES];
const used = values.features ? values.features.split(',') : names;
for (const u of used) if (!names.includes(u as (typeof names)[number])) throw new Error(`unknown feature ${u}`);
const mask = names.map((n) => used.includes(n));

function baseline(): Float64Array {
  const w = new Float64Array(names.length);
  w[names.indexOf('kw5')] = 4;
  w[names.indexOf('vec5')] = 1;
  return w;
}

/** Coordinate ascent from the product's fusion: each used feature's weight moved by the step that helps most, until none does. */
function learn(qs: Query[], rounds: number): Float64Array {
  const w = baseline();
  let best = meanNdcg(qs, w);
  const steps = [-2, -1, -0.5, -0.25, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2];
  for (let round = 0; round < rounds; round++) {
    let improved = false;
    for (let j = 0; j < names.length; j++) {
      if (!mask[j]) continue;
      let bestW = w[j]!;
      for (const step of steps) {
        const old = w[j]!;
        w[j] = old + step;
        const s = meanNdcg(qs, w);
        if (s > best + 1e-6) {
          best = s;
          bestW = w[j]!;
          improved = true;
        }
        w[j] = old;
      }
      w[j] = bestW;
    }
    console.log(`  round ${round + 1}: train nDCG@10 ${best.toFixed(4)}`);
    if (!improved) break;
  }
  return w;
}

function report(label: string, qs: Query[], w: Float64Array): void {
  const base = byGroup(qs, baseline());
  const learned = byGroup(qs, w);
  const rows = [...base.keys()].map((g) => {
    const a = base.get(g)!;
    const b = learned.get(g)!;
    const delta = (mean(b) - mean(a)) * 100;
    return `  ${g.padEnd(20)} product ${mean(a).toFixed(3)}  learned ${mean(b).toFixed(3)}  Δ ${delta.toFixed(1)} ± ${(pairedStandardError(a, b) * 100).toFixed(1)}`;
  });
  console.log(`${label}: product ${meanNdcg(qs, baseline()).toFixed(4)} learned ${meanNdcg(qs, w).toFixed(4)}\n${rows.join('\n')}`);
}

const test = await load(values.test);
if (values.apply) {
  const model = JSON.parse(await fs.readFile(values.apply, 'utf8')) as Record<string, number>;
  const w = Float64Array.from(names.map((n) => model[n] ?? 0));
  report('applied', test, w);
} else {
  const train = await load(values.train);
  const w = learn(train, Number(values.rounds));
  const model: Record<string, number> = {};
  names.forEach((n, j) => {
    const x = Math.round(w[j]! * 1000) / 1000;
    if (x !== 0) model[n] = x;
  });
  console.log('model', JSON.stringify(model));
  if (values.model) await fs.writeFile(values.model, JSON.stringify(model));
  report('train', train, w);
  if (test.length) report('test', test, w);
}
