import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Owner, SegmentState } from './segment.js';

/** Which of the flat index's maps a segment belongs to. */
export type SegmentGroup = 'knowledgeBase' | 'otherEmbedder' | 'corpus';

/** What a snapshot says about itself: of which database, whose vectors, and when (by the database's clock) it was taken. */
export interface SnapshotHeader {
  /** The id of the database whose tables the snapshot holds (see readDatabaseId). */
  databaseId: string;
  embedderId: string;
  keywords: boolean;
  /** The keyword index generation the segments' lexemes were read at (readKeywordIndexGeneration). */
  keywordIndexGeneration: number;
  takenAt: string;
}

export interface SnapshotSegment {
  group: SegmentGroup;
  id: string;
  state: SegmentState<Owner>;
  /** usearch's file of the segment's graph, when it has one. */
  graphFile?: string | undefined;
}

interface ManifestEntry {
  group: SegmentGroup;
  id: string;
  file: string;
  sha256: string;
  graphFile?: string;
  graphSha256?: string;
}

interface Manifest extends Omit<SnapshotHeader, 'databaseId' | 'keywordIndexGeneration'> {
  format: number;
  /** Absent from snapshots written before databases had ids. */
  databaseId?: string;
  /** Absent from snapshots written before keyword indexes could be rebuilt (generation 0). */
  keywordIndexGeneration?: number;
  segments: ManifestEntry[];
}

/** The header of a segment file: everything but the typed arrays, which follow it in order (see writeSegment). */
type SegmentHeader = Pick<SegmentState<Owner>, 'dimensions' | 'tenantId' | 'subTenantId' | 'rows' | 'dead' | 'nonZero' | 'chunkIds'> & {
  owners: unknown[];
  lexemes?: string[];
  graph?: { labels: number; covered: number };
  /** Byte length of each blob. */
  blobs: number[];
};

/** 2 since 2026-11-26: postings keep occurrences in title and text, and each row's length (BM25F). */
const FORMAT = 2;
const MAGIC = Buffer.from('LOREFLAT');
const CURRENT = 'CURRENT';

/** Why a snapshot could not be used. */
export class InvalidSnapshot extends Error {}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * The flat index's snapshots on disk, so a restart reads its memory back in seconds instead of
 * rebuilding it from the tables (and its graphs from scratch). Each snapshot is a generation
 * directory: a manifest, a file per segment, and usearch's file of each graph, every file with its
 * SHA-256 in the manifest; the file CURRENT names the complete generation and the manifest's own
 * hash, and is replaced (written aside, synced, renamed) only once everything else is synced. A
 * write cut short (a crash, a full disk) leaves CURRENT on the previous generation; a file changed
 * or cut afterwards fails its hash, and the snapshot is refused (the caller rebuilds from the tables).
 */
export class SnapshotStore {
  constructor(readonly dir: string) {}

  /** A new generation's directory, to which `write` adds files (graphs are saved by the segments themselves). */
  async begin(): Promise<string> {
    const generation = path.join(this.dir, `gen-${Date.now()}-${process.pid}-${Math.floor(Math.random() * 1e9)}`);
    await fs.mkdir(generation, { recursive: true });
    return generation;
  }

  /** Writes the segments into `generation` (from `begin`) and makes it current; older generations are removed. */
  async write(generation: string, header: SnapshotHeader, segments: readonly SnapshotSegment[]): Promise<void> {
    const entries: ManifestEntry[] = [];
    for (const [i, segment] of segments.entries()) {
      const file = `segment-${i}.bin`;
      const sha256 = await this.writeSegment(path.join(generation, file), segment.state);
      const entry: ManifestEntry = { group: segment.group, id: segment.id, file, sha256 };
      if (segment.graphFile) {
        entry.graphFile = path.basename(segment.graphFile);
        entry.graphSha256 = await sha256OfFile(segment.graphFile);
      }
      entries.push(entry);
    }
    const manifest: Manifest = { format: FORMAT, ...header, segments: entries };
    const text = JSON.stringify(manifest);
    await writeSynced(path.join(generation, 'manifest.json'), [Buffer.from(text)]);
    const current = path.join(this.dir, CURRENT);
    await writeSynced(`${current}.tmp`, [Buffer.from(`${path.basename(generation)}\n${createHash('sha256').update(text).digest('hex')}\n`)]);
    await fs.rename(`${current}.tmp`, current);
    await syncDirectory(this.dir);
    await this.removeOthers(path.basename(generation));
  }

  /** Removes an unfinished generation (its write failed). */
  async abandon(generation: string): Promise<void> {
    await fs.rm(generation, { recursive: true, force: true });
  }

  /**
   * The current snapshot, checked: undefined when there is none; InvalidSnapshot (thrown) when it
   * is torn, altered, of another format, of another database (or names none) or of another
   * embedder or keyword setting.
   */
  async read(expected: Omit<SnapshotHeader, 'takenAt'>): Promise<{ header: SnapshotHeader; segments: SnapshotSegment[] } | undefined> {
    const current = await fs.readFile(path.join(this.dir, CURRENT), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (current === undefined) return undefined;
    const [name, manifestHash] = current.split('\n');
    if (!name || !/^gen-[\w-]+$/.test(name) || !manifestHash) throw new InvalidSnapshot('CURRENT is malformed');
    const generation = path.join(this.dir, name);
    const text = await fs.readFile(path.join(generation, 'manifest.json'), 'utf8').catch(() => {
      throw new InvalidSnapshot(`${name} has no manifest`);
    });
    if (createHash('sha256').update(text).digest('hex') !== manifestHash) throw new InvalidSnapshot('the manifest does not match its hash');
    const manifest = JSON.parse(text) as Manifest;
    if (manifest.format !== FORMAT) throw new InvalidSnapshot(`format ${manifest.format}, not ${FORMAT}`);
    if (manifest.databaseId !== expected.databaseId) {
      const taken = manifest.databaseId ? `taken of database ${manifest.databaseId}` : 'names no database';
      throw new InvalidSnapshot(`${taken}, not of this one (${expected.databaseId})`);
    }
    if (manifest.embedderId !== expected.embedderId) throw new InvalidSnapshot(`taken with embedder ${manifest.embedderId}`);
    if (manifest.keywords !== expected.keywords) throw new InvalidSnapshot('taken with another keyword setting');
    const keywordIndexGeneration = manifest.keywordIndexGeneration ?? 0;
    if (expected.keywords && keywordIndexGeneration !== expected.keywordIndexGeneration) {
      throw new InvalidSnapshot(`taken at keyword index generation ${keywordIndexGeneration}, before a rebuild (now ${expected.keywordIndexGeneration})`);
    }
    const segments: SnapshotSegment[] = [];
    for (const entry of manifest.segments) {
      const state = await this.readSegment(path.join(generation, entry.file), entry.sha256);
      let graphFile: string | undefined;
      if (entry.graphFile && entry.graphSha256) {
        graphFile = path.join(generation, path.basename(entry.graphFile));
        const hash = await sha256OfFile(graphFile).catch(() => undefined);
        if (hash !== entry.graphSha256) throw new InvalidSnapshot(`${entry.graphFile} does not match its hash`);
      }
      segments.push({ group: entry.group, id: entry.id, state, graphFile });
    }
    const { embedderId, keywords, takenAt } = manifest;
    return { header: { databaseId: expected.databaseId, embedderId, keywords, keywordIndexGeneration, takenAt }, segments };
  }

  private async writeSegment(file: string, state: SegmentState<Owner>): Promise<string> {
    const blobs: Uint8Array[] = [bytesOf(state.data), bytesOf(state.rowOwner)];
    if (state.postings) blobs.push(bytesOf(state.postings.lengths), bytesOf(state.postings.entries), bytesOf(state.postings.rowLexemes));
    if (state.graph) blobs.push(bytesOf(state.graph.labelRow));
    const header: SegmentHeader = {
      dimensions: state.dimensions,
      tenantId: state.tenantId,
      subTenantId: state.subTenantId,
      rows: state.rows,
      dead: state.dead,
      nonZero: state.nonZero,
      chunkIds: state.chunkIds,
      owners: state.owners,
      ...(state.postings ? { lexemes: state.postings.lexemes } : {}),
      ...(state.graph ? { graph: { labels: state.graph.labels, covered: state.graph.covered } } : {}),
      blobs: blobs.map((b) => b.byteLength),
    };
    const json = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(json.byteLength);
    // Blobs start on a multiple of 8 bytes, so typed arrays can be read in place.
    const parts: Uint8Array[] = [MAGIC, length, json];
    let offset = MAGIC.byteLength + 4 + json.byteLength;
    for (const blob of blobs) {
      const pad = (8 - (offset % 8)) % 8;
      if (pad) parts.push(Buffer.alloc(pad));
      parts.push(blob);
      offset += pad + blob.byteLength;
    }
    const hash = createHash('sha256');
    for (const part of parts) hash.update(part);
    await writeSynced(file, parts);
    return hash.digest('hex');
  }

  /**
   * A segment file, checked against its hash first (streamed), then read section by section into
   * arrays of their own: memory holds each section once, never the whole file beside the copies.
   */
  private async readSegment(file: string, sha256: string): Promise<SegmentState<Owner>> {
    const name = path.basename(file);
    const hash = await sha256OfFile(file).catch(() => {
      throw new InvalidSnapshot(`${name} is missing`);
    });
    if (hash !== sha256) throw new InvalidSnapshot(`${name} does not match its hash`);
    const handle = await fs.open(file, 'r');
    try {
      let position = 0;
      const read = async (length: number): Promise<Uint8Array> => {
        const out = new Uint8Array(length);
        for (let done = 0; done < length; ) {
          const { bytesRead } = await handle.read(out, done, Math.min(length - done, 1 << 30), position + done);
          if (!bytesRead) throw new InvalidSnapshot(`${name} is cut short`);
          done += bytesRead;
        }
        position += length;
        return out;
      };
      if (!Buffer.from(await read(MAGIC.byteLength)).equals(MAGIC)) throw new InvalidSnapshot(`${name} is not a segment file`);
      const jsonLength = Buffer.from(await read(4)).readUInt32LE(0);
      const header = JSON.parse(Buffer.from(await read(jsonLength)).toString('utf8')) as SegmentHeader;
      const blobs: ArrayBuffer[] = [];
      for (const length of header.blobs) {
        // Blobs start on a multiple of 8 bytes (see writeSegment).
        const pad = (8 - (position % 8)) % 8;
        if (pad) await read(pad);
        blobs.push((await read(length)).buffer as ArrayBuffer);
      }
      const blob = (i: number | undefined) => {
        const b = i === undefined ? undefined : blobs[i];
        if (!b) throw new InvalidSnapshot(`${name} lacks a section`);
        return b;
      };
      // Sections in writeSegment's order: data, rowOwner, [lengths, entries, rowLexemes], [labelRow].
      const postings = header.lexemes ? { lengths: 2, entries: 3, rowLexemes: 4 } : undefined;
      const labelRow = postings ? 5 : 2;
      return {
        dimensions: header.dimensions,
        tenantId: header.tenantId,
        subTenantId: header.subTenantId,
        rows: header.rows,
        dead: header.dead,
        nonZero: header.nonZero,
        data: new Int8Array(blob(0)),
        chunkIds: header.chunkIds,
        rowOwner: new Int32Array(blob(1)),
        owners: header.owners as Array<Omit<Owner, 'rows'>>,
        postings:
          header.lexemes && postings
            ? {
                lexemes: header.lexemes,
                lengths: new Uint32Array(blob(postings.lengths)),
                entries: new Uint32Array(blob(postings.entries)),
                rowLexemes: new Uint32Array(blob(postings.rowLexemes)),
              }
            : undefined,
        graph: header.graph ? { ...header.graph, labelRow: new Int32Array(blob(labelRow)) } : undefined,
      };
    } finally {
      await handle.close();
    }
  }

  private async removeOthers(keep: string): Promise<void> {
    for (const name of await fs.readdir(this.dir)) {
      if (name.startsWith('gen-') && name !== keep) await fs.rm(path.join(this.dir, name), { recursive: true, force: true });
    }
  }
}

/** Writes `parts` to `file` and syncs it to disk. */
async function writeSynced(file: string, parts: readonly Uint8Array[]): Promise<void> {
  const handle = await fs.open(file, 'w');
  try {
    for (const part of parts) await handle.write(part);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Syncs a directory's entries (a rename in it), where the platform allows it. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r').catch(() => undefined);
  try {
    await handle?.sync().catch(() => undefined);
  } finally {
    await handle?.close();
  }
}
