import type { SqlParam } from '../db/database.js';

/** Collects positional parameters while a statement is assembled: `p.add(v)` returns `$n`. */
export class SqlParams {
  readonly values: SqlParam[] = [];

  add(value: SqlParam): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Escapes LIKE/ILIKE wildcards so user text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `{0.1,0.2,…}`: a vector as a PostgreSQL real[] literal (6 decimals: vectors are unit length). */
export function toRealArrayLiteral(vector: Float32Array | number[]): string {
  let out = '{';
  for (let i = 0; i < vector.length; i++) {
    if (i) out += ',';
    out += (vector[i] as number).toFixed(6);
  }
  return `${out}}`;
}

/** `[0.1,0.2,…]`: the same vector as a pgvector literal. */
export function toVectorLiteral(vector: Float32Array | number[]): string {
  const arr = toRealArrayLiteral(vector);
  return `[${arr.slice(1, -1)}]`;
}
