/**
 * Debian's package descriptions as a second TUNING collection, shaped like the held-back manual
 * pages: each package is one document (title: the package name; text: its long description), and
 * its short description ("copy files and directories" shape: "real-time strategy game of ancient
 * warfare") is a known-item query for it. The help's index terms are short topic names; the manual
 * pages' queries are descriptions of what a page is for, and settings chosen on index terms alone
 * did not carry over to them (docs/retrieval-quality.md). This collection lets such settings be chosen
 * on descriptions too, without reading the held-back pages.
 *
 * The descriptions are Debian 12's, in English (`Translation-en`) and as the Debian Description
 * Translation Project translated them (`Translation-<lang>`), written by maintainers and
 * translators, none of them here. Debian 12 has too few Romanian and no Bulgarian translations.
 *
 * Run through the retrieval-quality bench:
 *   npx tsx bench/retrieval-quality.bench.ts --collection packages --languages en,de,fr,es,it,nl
 *
 * The files are fetched from deb.debian.org into a cache directory (git-ignored
 * `.bench/debian-packages`) on the first run and read from there afterwards; their SHA-256 is
 * printed as the collection's version, as the archive updates them at point releases.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { IndexEntry } from './libreoffice-help.js';
import { type CollectionOptions, type ManCollection, type ManPage, describedCollection, descriptionEntries } from './manpages.js';

const execFileAsync = promisify(execFile);

const ARCHIVE = 'http://deb.debian.org/debian/dists/bookworm/main/i18n';

/** Lore's language code → its file in the archive (English is xz-compressed, translations bzip2). */
export const PACKAGE_LANGUAGES: Record<string, string> = {
  en: 'Translation-en.xz',
  de: 'Translation-de.bz2',
  fr: 'Translation-fr.bz2',
  es: 'Translation-es.bz2',
  it: 'Translation-it.bz2',
  nl: 'Translation-nl.bz2',
};

/** The language's descriptions file, decompressed, fetching it first unless the cache holds it. */
async function ensureTranslationFile(cacheDir: string, language: string): Promise<{ text: string; version: string }> {
  const file = PACKAGE_LANGUAGES[language];
  if (!file) throw new Error(`No package descriptions are known for language '${language}'; use ${Object.keys(PACKAGE_LANGUAGES).join(', ')}.`);
  const plain = path.join(cacheDir, file.replace(/\.(xz|bz2)$/, ''));
  let text = await fs.readFile(plain, 'utf8').catch(() => undefined);
  if (text === undefined) {
    await fs.mkdir(cacheDir, { recursive: true });
    const response = await fetch(`${ARCHIVE}/${file}`);
    if (!response.ok) throw new Error(`fetching ${ARCHIVE}/${file}: HTTP ${response.status}`);
    const packed = path.join(cacheDir, file);
    await fs.writeFile(packed, Buffer.from(await response.arrayBuffer()));
    // Decompressed beside it, then renamed into place: an interrupted run leaves no partial file to read.
    const { stdout } = await execFileAsync(file.endsWith('.xz') ? 'xz' : 'bzip2', ['-d', '-c', packed], {
      encoding: 'buffer',
      maxBuffer: 1 << 30,
    });
    await fs.writeFile(`${plain}.partial`, stdout);
    await fs.rename(`${plain}.partial`, plain);
    await fs.rm(packed);
    text = stdout.toString('utf8');
  }
  const sha = createHash('sha256').update(text).digest('hex').slice(0, 12);
  return { text, version: `bookworm ${path.basename(plain)} sha256:${sha}` };
}

/**
 * A `Translation-*` file's stanzas as documents: `Package` is the id and title; the first line of
 * `Description-<lang>` is the description (the query), its continuation lines the text (a line of
 * " ." is a paragraph break). A package listed twice keeps its first stanza.
 */
export function parseTranslationFile(text: string): ManPage[] {
  const pages: ManPage[] = [];
  const seen = new Set<string>();
  for (const stanza of text.split(/\n\s*\n/)) {
    const lines = stanza.split('\n');
    const pkg = lines.find((l) => l.startsWith('Package:'))?.slice('Package:'.length).trim();
    const start = lines.findIndex((l) => /^Description-[a-zA-Z_]+:/.test(l));
    if (!pkg || start === -1 || seen.has(pkg)) continue;
    const description = lines[start]!.slice(lines[start]!.indexOf(':') + 1).trim();
    const body: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (!line.startsWith(' ')) break;
      body.push(line.trim() === '.' ? '' : line.trim());
    }
    const longText = body.join('\n').replace(/\n{3,}/g, '\n\n').trim();
    if (!longText) continue;
    seen.add(pkg);
    pages.push({ id: pkg, title: pkg, description, text: longText });
  }
  return pages;
}

/**
 * One language's collection, drawn as the manual pages' is: `count` queries with `seed` from the
 * distinct descriptions, then the documents capped at `maxDocuments` keeping every judged package.
 */
export async function loadPackageCollection(cacheDir: string, language: string, options: CollectionOptions): Promise<ManCollection> {
  const { pages, version } = await loadPackages(cacheDir, language);
  return describedCollection(language, version, pages, options);
}

/** The English descriptions, to tell which translated ones were left in English. */
export async function loadPackageIndex(cacheDir: string, language: string): Promise<IndexEntry[]> {
  return descriptionEntries((await loadPackages(cacheDir, language)).pages);
}

/**
 * Each package's short and long description as one text, by package name: the same package's
 * texts in two languages are parallel (both written from the English one), for translation
 * benches.
 */
export async function loadPackageTexts(cacheDir: string, language: string): Promise<{ version: string; paragraphs: Map<string, string> }> {
  const { pages, version } = await loadPackages(cacheDir, language);
  return { version, paragraphs: new Map(pages.map((p) => [p.id, `${p.description}\n\n${p.text}`])) };
}

/** Each file read and parsed once a run (English is both a collection and the index translations are compared with). */
const loaded = new Map<string, Promise<{ pages: ManPage[]; version: string }>>();
function loadPackages(cacheDir: string, language: string): Promise<{ pages: ManPage[]; version: string }> {
  const key = `${cacheDir}\0${language}`;
  const pending =
    loaded.get(key) ?? ensureTranslationFile(cacheDir, language).then(({ text, version }) => ({ pages: parseTranslationFile(text), version }));
  loaded.set(key, pending);
  return pending;
}
