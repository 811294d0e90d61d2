/**
 * The LibreOffice help (Debian's packages, six languages) as a stream of distinct chunks for the
 * benches that need more text than one pass over the pages gives: pass 0 chunks every page at
 * Lore's default size; each further pass chunks the same pages at another target size (400–1,800
 * characters), so its chunks differ; exact duplicates are dropped. Each chunk carries its page-pass
 * (its "document") and a tag from a hash of that page-pass: `p01` for 0.1 % of them, `p10` for
 * 10 %, none for the rest — the filters the benches measure.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { chunkText } from '../core/ingestion/chunker.js';
import { type HelpCollection, loadHelpCollection } from './libreoffice-help.js';
import { ROOT } from './support.js';

export const HELP_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl'];
/** A chunk's tag by number: 0 none, 1 `p10`, 2 `p01`. */
export const TAGS = ['', 'p10', 'p01'];

/** The tag number (TAGS) of a key: bucket 0 of 1,000 is `p01`, buckets 1–100 `p10`. */
export function tagOf(key: string): number {
  const bucket = createHash('sha1').update(key).digest().readUInt32BE(0) % 1000;
  return bucket === 0 ? 2 : bucket <= 100 ? 1 : 0;
}

export interface HelpChunk {
  content: string;
  language: string;
  /** The page's title. */
  title: string;
  /** Its page-pass, numbered from 0 in the stream's order. */
  document: number;
  /** TAGS index. */
  tag: number;
}

/** The help of each language, downloaded into the bench cache on first use. */
export async function loadHelpCollections(languages: readonly string[] = HELP_LANGUAGES): Promise<HelpCollection[]> {
  const collections = [];
  for (const language of languages) collections.push(await loadHelpCollection(path.join(ROOT, '.bench', 'libreoffice'), language));
  return collections;
}

/** Distinct chunks of the help, pass after pass, for as long as the caller reads (it throws when a pass adds none). */
export function* helpChunks(collections: readonly HelpCollection[]): Generator<HelpChunk> {
  const seen = new Set<string>();
  let document = 0;
  for (let pass = 0; ; pass++) {
    const targetChars = pass === 0 ? undefined : 400 + ((pass * 211) % 1400);
    let added = 0;
    for (const collection of collections) {
      for (const page of collection.pages) {
        const tag = tagOf(`${collection.language}/${page.id}/${pass}`);
        let used = false;
        for (const chunk of chunkText(page.text, targetChars ? { targetChars, maxChars: Math.max(2000, targetChars * 2) } : {})) {
          const key = createHash('sha1').update(chunk.content).digest('hex');
          if (seen.has(key)) continue;
          seen.add(key);
          used = true;
          added++;
          yield { content: chunk.content, language: collection.language, title: page.title, document, tag };
        }
        if (used) document++;
      }
    }
    if (!added) throw new Error(`the help pages give only ${seen.size} distinct chunks`);
  }
}
