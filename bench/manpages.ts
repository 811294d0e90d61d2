/**
 * Manual pages as a HELD-BACK retrieval test collection: for checking the ranking, never for tuning
 * it. The translated pages of manpages-l10n (Debian's `manpages-<lang>` and `manpages-<lang>-dev`)
 * and, for English, the Linux man-pages project (`manpages`, `manpages-dev`). Each page is one
 * document: title `cp(1)`, text the page rendered by groff with its NAME section removed. The
 * page's NAME description ("copy files and directories", in the page's language, written by its
 * authors and translators) is a known-item query with that page relevant; pages sharing a
 * description are all relevant to it.
 *
 * Run through the retrieval-quality bench:
 *   npx tsx bench/retrieval-quality.bench.ts --collection manpages --languages en,de --variants none
 *
 * The packages are fetched with `apt-get download` and unpacked with `dpkg -x` into a cache
 * directory (git-ignored `.bench/manpages`), where the rendered pages are also kept; nothing from
 * them is committed. Needs groff (Debian's `groff-base`, which man-db depends on).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { seededRandom } from '../core/shared/seeded-random.js';
import type { HelpPage, IndexEntry, RetrievalQuery } from './libreoffice-help.js';
import { sampleQueries } from './libreoffice-help.js';

const execFileAsync = promisify(execFile);

/**
 * Lore's language code → the Debian packages holding its pages and the man directory below
 * `usr/share/man` (`''` for the untranslated pages). Debian 12 has no Bulgarian manual pages.
 */
export const MAN_PACKAGES: Record<string, { pkgs: string[]; dir: string }> = {
  en: { pkgs: ['manpages', 'manpages-dev'], dir: '' },
  de: { pkgs: ['manpages-de', 'manpages-de-dev'], dir: 'de' },
  fr: { pkgs: ['manpages-fr', 'manpages-fr-dev'], dir: 'fr' },
  es: { pkgs: ['manpages-es', 'manpages-es-dev'], dir: 'es' },
  it: { pkgs: ['manpages-it', 'manpages-it-dev'], dir: 'it' },
  nl: { pkgs: ['manpages-nl', 'manpages-nl-dev'], dir: 'nl' },
  ro: { pkgs: ['manpages-ro'], dir: 'ro' },
};

/** A rendered page; `description` is its NAME description, '' if it has none. */
export interface ManPage extends HelpPage {
  description: string;
}

export interface ManCollection {
  language: string;
  /** `package version` of every package the pages come from. */
  version: string;
  /** The pages to ingest: every judged page, then others up to `maxDocuments`. */
  pages: HelpPage[];
  /** Pages in the packages (aliases and `.so` redirects left out). */
  available: number;
  /** The sampled known-item queries and the number of distinct descriptions they were drawn from. */
  queries: RetrievalQuery[];
  eligible: number;
  /** Every description of 3+ words, with its page (uncapped): queries are drawn from it, another language's too (`--cross`). */
  index: IndexEntry[];
}

/** Bump when rendering changes, so cached renderings are redone. */
const RENDER_VERSION = 3;
/** A known-item query needs a description of at least this many words. */
export const MIN_DESCRIPTION_WORDS = 3;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
export const wordCount = (s: string): number => s.match(WORD)?.length ?? 0;

/**
 * The unpacked packages of one language, downloading and unpacking them first unless the cache
 * already holds them; unpacked into a temporary directory renamed into place, as the help's are.
 */
export async function ensureManPackages(cacheDir: string, language: string): Promise<{ root: string; version: string }> {
  const entry = MAN_PACKAGES[language];
  if (!entry) throw new Error(`No manual pages are known for language '${language}'; use ${Object.keys(MAN_PACKAGES).join(', ')}.`);
  const root = path.join(cacheDir, language);
  const cached = await fs.readFile(path.join(root, 'VERSION'), 'utf8').catch(() => undefined);
  if (cached !== undefined) return { root, version: cached.trim() };

  const downloads = path.join(cacheDir, 'debs');
  await fs.mkdir(downloads, { recursive: true });
  const staging = `${root}.partial`;
  await fs.rm(staging, { recursive: true, force: true });
  const versions: string[] = [];
  for (const pkg of entry.pkgs) {
    try {
      await execFileAsync('apt-get', ['download', pkg], { cwd: downloads });
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr ?? '';
      throw new Error(`apt-get download ${pkg} failed (run apt-get update first?): ${stderr.trim() || String(err)}`, { cause: err });
    }
    const deb = (await fs.readdir(downloads)).filter((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb')).sort().pop();
    if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${downloads}`);
    const { stdout: version } = await execFileAsync('dpkg-deb', ['--field', path.join(downloads, deb), 'Version']);
    versions.push(`${pkg} ${version.trim()}`);
    await execFileAsync('dpkg', ['-x', path.join(downloads, deb), staging]);
  }
  await fs.writeFile(path.join(staging, 'VERSION'), versions.join(', '));
  await fs.rm(root, { recursive: true, force: true });
  await fs.rename(staging, root);
  return { root, version: versions.join(', ') };
}

/** `man1/cp.1.gz` → id `man1/cp.1`, title `cp(1)`; undefined for anything that is no page. */
export function pageName(file: string): { id: string; title: string } | undefined {
  const m = /^(man[0-9][^/]*)\/(.+)\.([0-9][a-zA-Z0-9]*)(?:\.gz)?$/.exec(file);
  if (!m) return undefined;
  return { id: `${m[1]}/${m[2]}.${m[3]}`, title: `${m[2]}(${m[3]})` };
}

/** A page whose first request is `.so other/page` only includes another page: an alias. */
export function isRedirect(roff: string): boolean {
  const first = roff.split('\n').find((l) => l.trim() !== '' && !/^['.]\s*\\"/.test(l));
  return first !== undefined && /^\.so\s/.test(first);
}

/**
 * The rendered page split into its description and indexed text. Section headings start in column
 * 0 and their bodies are indented. The first section is NAME in every language (BEZEICHNUNG, NOM,
 * NOMBRE, …): the first column-0 line followed by an indented one. Anything above it is groff's
 * header line (`CP(1)  User Commands  CP(1)`), and a last line in column 0 is its footer (source,
 * date, name): both are dropped as boilerplate. The NAME body after its first dash between spaces
 * (`cp - copy files`, or `cp — copy files` from mdoc) is the description, and the section is left
 * out of the text. Indentation and runs of spaces (justification) collapse.
 */
export function splitRenderedPage(rendered: string): { description: string; text: string } {
  const lines = rendered.replace(/\r/g, '').split('\n').map((l) => l.replace(/\s+$/u, ''));
  const isHeading = (l: string): boolean => l !== '' && !/^\s/u.test(l);
  const nextContent = (from: number): string => lines.slice(from).find((l) => l !== '') ?? '';
  const nameStart = lines.findIndex((l, i) => isHeading(l) && /^\s/u.test(nextContent(i + 1)));
  if (nameStart === -1) return { description: '', text: '' };
  let end = lines.length;
  while (end > nameStart + 1 && lines[end - 1] === '') end--;
  if (end > nameStart + 1 && isHeading(lines[end - 1]!)) end--;
  const nextHeading = lines.findIndex((l, i) => i > nameStart && i < end && isHeading(l));
  const nameEnd = nextHeading === -1 ? end : nextHeading;
  const name = lines.slice(nameStart + 1, nameEnd).join(' ').replace(/\s+/gu, ' ').trim();
  const dash = /\s[-–—]\s/u.exec(name);
  const description = dash ? name.slice(dash.index + dash[0].length).trim() : '';
  const text = lines
    .slice(nameEnd, end)
    .map((l) => l.trim().replace(/\s+/gu, ' '))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { description, text };
}

/** Runs a command with `input` on its standard input; resolves to its standard output. */
function runWithInput(command: string, args: string[], input: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new Error(`${command} exited with ${code}`))));
    child.stdin.on('error', () => undefined); // a renderer that stops reading early still reports through its exit code
    child.stdin.end(input);
  });
}

/**
 * groff as `man` runs it for a terminal, minus what would garble indexed words: no hyphenation (a
 * word split at a line end would be two words; `-rHY=0` for man pages, and ahead of the page
 * `.nh` with `.hy` made a no-op, since the mdoc macros switch it back on), no bold, underline or
 * overstrike sequences (`-P-cbou`); UTF-8 input (`-Kutf8`), tables (`-t`), man and mdoc macros.
 */
const GROFF_ARGS = ['-mandoc', '-Tutf8', '-Kutf8', '-t', '-rHY=0', '-P-cbou'];
const NO_HYPHENATION = Buffer.from('.nh\n.de hy\n..\n');

/** Every page file below `manDir` (symbolic links are aliases and left out), sorted. */
async function pageFiles(manDir: string): Promise<{ file: string; id: string; title: string }[]> {
  const sections = (await fs.readdir(manDir, { withFileTypes: true })).filter((d) => d.isDirectory() && /^man[0-9]/.test(d.name));
  const files: { file: string; id: string; title: string }[] = [];
  for (const section of sections) {
    for (const f of await fs.readdir(path.join(manDir, section.name), { withFileTypes: true })) {
      const name = pageName(`${section.name}/${f.name}`);
      if (f.isFile() && name) files.push({ file: path.join(manDir, section.name, f.name), ...name });
    }
  }
  return files.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Every page of a language rendered, from the cache when it holds this rendering version. Two
 * groff processes at a time; a page groff fails on is left out.
 */
export async function loadManPages(cacheDir: string, language: string): Promise<{ version: string; pages: ManPage[] }> {
  const { root, version } = await ensureManPackages(cacheDir, language);
  const cacheFile = path.join(root, `pages.v${RENDER_VERSION}.json`);
  const cached = await fs.readFile(cacheFile, 'utf8').catch(() => undefined);
  if (cached !== undefined) return { version, pages: JSON.parse(cached) as ManPage[] };

  const manDir = path.join(root, 'usr/share/man', MAN_PACKAGES[language]!.dir);
  const files = await pageFiles(manDir);
  const rendered: (ManPage | undefined)[] = files.map(() => undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const i = next++;
      const { file, id, title } = files[i]!;
      const raw = await fs.readFile(file);
      const roff = file.endsWith('.gz') ? gunzipSync(raw) : raw;
      if (isRedirect(roff.toString('utf8'))) continue;
      const out = await runWithInput('groff', GROFF_ARGS, Buffer.concat([NO_HYPHENATION, roff])).catch(() => undefined);
      if (out === undefined) continue;
      const { description, text } = splitRenderedPage(out);
      if (text) rendered[i] = { id, title, description, text };
    }
  };
  await Promise.all([worker(), worker()]);
  const pages = rendered.filter((p): p is ManPage => p !== undefined);
  await fs.writeFile(`${cacheFile}.partial`, JSON.stringify(pages));
  await fs.rename(`${cacheFile}.partial`, cacheFile);
  return { version, pages };
}

/** Descriptions of 3+ words as index entries (term = description), the shape the help's index has. */
export function descriptionEntries(pages: readonly ManPage[]): IndexEntry[] {
  return pages.filter((p) => wordCount(p.description) >= MIN_DESCRIPTION_WORDS).map((p) => ({ term: p.description, page: p.id }));
}

/** The English descriptions, to tell which translated ones were left in English. */
export async function loadManIndex(cacheDir: string, language: string): Promise<IndexEntry[]> {
  return descriptionEntries((await loadManPages(cacheDir, language)).pages);
}

/**
 * The judged pages and then others in seeded order, `maxDocuments` in all (or every judged page,
 * if there are more of them); in the packages' order.
 */
export function capPages(pages: readonly ManPage[], judged: ReadonlySet<string>, maxDocuments: number, seed: number): ManPage[] {
  const others = pages.filter((p) => !judged.has(p.id));
  const random = seededRandom(seed);
  for (let i = others.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [others[i], others[j]] = [others[j]!, others[i]!];
  }
  const kept = new Set([...judged, ...others.slice(0, Math.max(0, maxDocuments - judged.size)).map((p) => p.id)]);
  return pages.filter((p) => kept.has(p.id));
}

/**
 * One language's collection: `count` queries drawn with `seed` from the distinct descriptions
 * (grouped and sampled as the help's index terms are, by `sampleQueries`), then the documents
 * capped at `maxDocuments` keeping every judged page.
 */
export async function loadManCollection(cacheDir: string, language: string, options: CollectionOptions): Promise<ManCollection> {
  const { version, pages } = await loadManPages(cacheDir, language);
  return describedCollection(language, version, pages, options);
}

export interface CollectionOptions {
  count: number;
  seed: number;
  maxRelevant: number;
  maxDocuments: number;
}

/**
 * A known-item collection of described pages (manual pages, packages): the queries drawn from the
 * descriptions of 3+ words, then the pages capped keeping every judged one.
 */
export function describedCollection(language: string, version: string, pages: readonly ManPage[], options: CollectionOptions): ManCollection {
  const index = descriptionEntries(pages);
  const { queries, eligible } = sampleQueries(index, new Set(pages.map((p) => p.id)), { set: 'entries', ...options });
  const judged = new Set(queries.flatMap((q) => [...q.relevant]));
  const kept = capPages(pages, judged, options.maxDocuments, options.seed);
  return {
    language,
    version,
    pages: kept.map(({ id, title, text }) => ({ id, title, text })),
    available: pages.length,
    queries,
    eligible,
    index,
  };
}
