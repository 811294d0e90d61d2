import { BinaryParam, type Queryable, type SqlParam } from './database.js';
import { toRealArrayLiteral } from '../shared/sql-params.js';

/** How the chunk tables store embeddings: pgvector's `vector` (its type oid), or real[] where pgvector is missing. */
type EmbeddingColumn = { kind: 'vector'; oid: number } | { kind: 'array' };

const columns = new WeakMap<object, Promise<EmbeddingColumn>>();

function embeddingColumn(db: Queryable): Promise<EmbeddingColumn> {
  let column = columns.get(db);
  if (!column) {
    column = db
      .query<{ typname: string; oid: number }>(
        `SELECT t.typname, t.oid::int AS oid FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
         WHERE a.attrelid = 'chunks'::regclass AND a.attname = 'embedding'`,
      )
      .then(({ rows }) => (rows[0]?.typname === 'vector' ? { kind: 'vector' as const, oid: rows[0].oid } : { kind: 'array' as const }));
    column.catch(() => columns.delete(db));
    columns.set(db, column);
  }
  return column;
}

/**
 * Writes embeddings as one parameter for `unnest(<param>::<type>)`, whose elements `element(e)`
 * turns into the column's type. With pgvector, a binary vector[] (dimension, then float4s,
 * big-endian): the server copies it, where parsing 1,024 floats of text cost ~1.4 ms per chunk in
 * PGlite (~60 µs binary). Without pgvector, real[] literals as text.
 */
/** Embeddings as one statement parameter: its value, its SQL array type, and the cast of one element. */
export interface EncodedEmbeddings {
  value: SqlParam;
  type: 'vector[]' | 'text[]';
  element: (e: string) => string;
}

export class EmbeddingEncoder {
  private constructor(private readonly column: EmbeddingColumn) {}

  /** The encoder for a database (its column type is looked up once; call it outside transactions). */
  static async of(db: Queryable): Promise<EmbeddingEncoder> {
    return new EmbeddingEncoder(await embeddingColumn(db));
  }

  encode(vectors: readonly Float32Array[]): EncodedEmbeddings {
    const column = this.column;
    if (column.kind === 'array' || !vectors.length) {
      return { value: vectors.map(toRealArrayLiteral), type: 'text[]', element: (e) => `${e}::real[]` };
    }
    let size = 20;
    for (const v of vectors) size += 8 + 4 * v.length;
    const buf = Buffer.alloc(size);
    // array_recv: dimensions, has-nulls flag, element type, then length and lower bound of the one dimension.
    let o = buf.writeInt32BE(1, 0);
    o = buf.writeInt32BE(0, o);
    o = buf.writeInt32BE(column.oid, o);
    o = buf.writeInt32BE(vectors.length, o);
    o = buf.writeInt32BE(1, o);
    for (const v of vectors) {
      // Each element: its byte length, then vector_recv's format (int16 dimensions, int16 unused, float4s).
      o = buf.writeInt32BE(4 + 4 * v.length, o);
      o = buf.writeInt16BE(v.length, o);
      o = buf.writeInt16BE(0, o);
      for (let i = 0; i < v.length; i++) o = buf.writeFloatBE(v[i]!, o);
    }
    return { value: new BinaryParam(buf), type: 'vector[]', element: (e) => e };
  }
}

/**
 * Reads embeddings back: `select(column)` is the SQL that fetches one, `parse` turns what the
 * driver returns into a vector. With pgvector, its binary form (`vector_send`: int16 dimensions,
 * int16 unused, float4s big-endian) as bytea — printing 1,024 floats as text and parsing them
 * again cost ~300 µs per chunk in PGlite; without pgvector, the real[] as text.
 */
export class EmbeddingReader {
  private constructor(private readonly column: EmbeddingColumn) {}

  static async of(db: Queryable): Promise<EmbeddingReader> {
    return new EmbeddingReader(await embeddingColumn(db));
  }

  select(column: string): string {
    return this.column.kind === 'vector' ? `vector_send(${column})` : `${column}::text`;
  }

  parse(value: unknown): Float32Array {
    if (typeof value === 'string') return Float32Array.from(value.slice(1, -1).split(','), Number);
    const bytes = value as Uint8Array;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out = new Float32Array(view.getInt16(0));
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 + 4 * i);
    return out;
  }
}
