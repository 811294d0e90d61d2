/**
 * The LibreOffice help as a retrieval test collection: Debian's `libreoffice-help-<lang>` packages
 * ship every help page as HTML plus the help index (`bookmarks.js`), which a human editor wrote
 * and which links each index term to the pages it is about. Pages become documents; index terms
 * become queries whose relevant documents are the pages the index links them to.
 *
 * The packages are fetched with `apt-get download` and unpacked with `dpkg -x` into a cache
 * directory (git-ignored `.bench/`); nothing from them is committed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { seededRandom } from '../core/shared/seeded-random.js';

const execFileAsync = promisify(execFile);

/** Lore's language code → the Debian package suffix and the help's directory name in it. */
export const HELP_PACKAGES: Record<string, { pkg: string; dir: string }> = {
  en: { pkg: 'libreoffice-help-en-us', dir: 'en-US' },
  de: { pkg: 'libreoffice-help-de', dir: 'de' },
  fr: { pkg: 'libreoffice-help-fr', dir: 'fr' },
  es: { pkg: 'libreoffice-help-es', dir: 'es' },
  it: { pkg: 'libreoffice-help-it', dir: 'it' },
  nl: { pkg: 'libreoffice-help-nl', dir: 'nl' },
  // Not packaged by Debian 12 (no `libreoffice-help-bg`/`-ro`); listed so asking for them fails
  // with apt's own message instead of an unknown-language error.
  bg: { pkg: 'libreoffice-help-bg', dir: 'bg' },
  ro: { pkg: 'libreoffice-help-ro', dir: 'ro' },
};

export interface HelpPage {
  /** Path below the language directory, e.g. `text/swriter/guide/calculate.html`. */
  id: string;
  title: string;
  text: string;
}

export interface IndexEntry {
  /** The index term as shown, e.g. `AutoCorrect function -- headings`. */
  term: string;
  /** Page id (as `HelpPage.id`) the entry links to. */
  page: string;
}

export interface HelpCollection {
  language: string;
  /** Debian package version the pages come from. */
  version: string;
  pages: HelpPage[];
  index: IndexEntry[];
}

/**
 * The unpacked help of one language, downloading and unpacking the package first unless the cache
 * already holds it. The unpack goes to a temporary directory that is renamed into place, so an
 * interrupted run never leaves a half-unpacked cache that later runs would trust.
 */
export async function ensureHelpPackage(cacheDir: string, language: string): Promise<{ helpDir: string; version: string }> {
  const entry = HELP_PACKAGES[language];
  if (!entry) throw new Error(`No LibreOffice help package is known for language '${language}'.`);
  const root = path.join(cacheDir, language);
  const helpDir = path.join(root, 'usr/share/libreoffice/help', entry.dir);
  const versionFile = path.join(root, 'VERSION');
  const cached = await fs.readFile(versionFile, 'utf8').catch(() => undefined);
  if (cached !== undefined) return { helpDir, version: cached.trim() };

  const downloads = path.join(cacheDir, 'debs');
  await fs.mkdir(downloads, { recursive: true });
  try {
    await execFileAsync('apt-get', ['download', entry.pkg], { cwd: downloads });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`apt-get download ${entry.pkg} failed (run apt-get update first?): ${stderr.trim() || String(err)}`, {
      cause: err,
    });
  }
  const deb = (await fs.readdir(downloads)).filter((f) => f.startsWith(`${entry.pkg}_`) && f.endsWith('.deb')).sort().pop();
  if (!deb) throw new Error(`apt-get download ${entry.pkg} left no .deb in ${downloads}`);
  const { stdout: version } = await execFileAsync('dpkg-deb', ['--field', path.join(downloads, deb), 'Version']);
  const staging = `${root}.partial`;
  await fs.rm(staging, { recursive: true, force: true });
  await execFileAsync('dpkg', ['-x', path.join(downloads, deb), staging]);
  await fs.writeFile(path.join(staging, 'VERSION'), version.trim());
  await fs.rm(root, { recursive: true, force: true });
  await fs.rename(staging, root);
  return { helpDir, version: version.trim() };
}

export async function loadHelpCollection(cacheDir: string, language: string): Promise<HelpCollection> {
  const { helpDir, version } = await ensureHelpPackage(cacheDir, language);
  const files = (await fs.readdir(path.join(helpDir, 'text'), { recursive: true }))
    .filter((f) => f.endsWith('.html'))
    .map((f) => path.posix.join('text', f.split(path.sep).join('/')))
    .sort();
  const pages: HelpPage[] = [];
  for (const id of files) {
    const html = await fs.readFile(path.join(helpDir, id), 'utf8');
    const { title, text } = helpPageToText(html);
    if (text) pages.push({ id, title: title || id, text });
  }
  const index = parseBookmarks(await fs.readFile(path.join(helpDir, 'bookmarks.js'), 'utf8'));
  return { language, version, pages, index };
}

/** The index alone, e.g. the English one to tell which terms another language left untranslated. */
export async function loadHelpIndex(cacheDir: string, language: string): Promise<IndexEntry[]> {
  const { helpDir } = await ensureHelpPackage(cacheDir, language);
  return parseBookmarks(await fs.readFile(path.join(helpDir, 'bookmarks.js'), 'utf8'));
}

/**
 * `bookmarks.js` is one JavaScript array literal, one entry a line:
 * `{url:"en-US/text/swriter/guide/calculate.html?DbPAR=WRITER#bm_id3149909", app:"WRITER", text:"= -- in Writer tables"},`
 * where `text` is a JS string holding HTML-escaped text. It is read line by line rather than
 * evaluated, since it is third-party code.
 */
export function parseBookmarks(js: string): IndexEntry[] {
  const line = /^\{url:"((?:[^"\\]|\\.)*)",\s*app:"(?:[^"\\]|\\.)*",\s*text:"((?:[^"\\]|\\.)*)"\},?\s*$/;
  const entries: IndexEntry[] = [];
  for (const raw of js.split('\n')) {
    const m = line.exec(raw.trim());
    if (!m) continue;
    const url = unescapeJs(m[1] ?? '');
    // `<lang>/text/…/page.html?DbPAR=…#bm_…` → `text/…/page.html`
    const page = url.replace(/[?#].*$/, '').replace(/^[^/]+\//, '');
    const term = decodeEntities(unescapeJs(m[2] ?? '')).replace(/\s+/g, ' ').trim();
    if (term && page.startsWith('text/')) entries.push({ term, page });
  }
  return entries;
}

function unescapeJs(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_m, e: string) =>
    e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : e === 'n' ? '\n' : e === 't' ? '\t' : e,
  );
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', shy: '',
  ndash: '–', mdash: '—', hellip: '…', laquo: '«', raquo: '»', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”',
  bdquo: '„', sbquo: '‚', copy: '©', reg: '®', trade: '™', deg: '°', times: '×', divide: '÷', euro: '€',
  middot: '·', bull: '•', larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', rArr: '⇒', le: '≤', ge: '≥', ne: '≠',
};

/** Decodes character references; an unknown name or an invalid code point is left as written. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref] ?? whole;
  });
}

/** Elements whose content is never text (scripts, styles, the document head, form controls). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'head', 'template', 'svg', 'math', 'button', 'select', 'textarea']);
/** Elements that start and end a paragraph: a blank line, which the chunker treats as a boundary. */
const BLOCKS = new Set([
  'p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody',
  'tfoot', 'tr', 'pre', 'blockquote', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main', 'figure',
  'figcaption', 'hr', 'address', 'caption',
]);
/** Table cells are separated by a space-padded bar so that a row stays one line. */
const CELLS = new Set(['td', 'th']);

/**
 * HTML to plain text for indexing: drops comments, scripts, styles and every tag (attributes such
 * as the pages' `<meta itemprop="keywords">` are not text, and keeping them would leak the index
 * terms into the documents), decodes character references, collapses whitespace outside `<pre>`,
 * and keeps block structure as blank lines and `<br>` as a line break.
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let skipping: string | undefined;
  let preDepth = 0;
  // A tag is `<` + optional `/` + a name, then attributes (quoted values may hold `>`).
  const token = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<[!?][^>]*>|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</g;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    const [whole, closing, rawName] = m;
    if (rawName === undefined) {
      if (skipping || whole.startsWith('<!') || whole.startsWith('<?')) continue;
      const text = decodeEntities(whole);
      out.push(preDepth > 0 ? text : text.replace(/\s+/g, ' '));
      continue;
    }
    const name = rawName.toLowerCase();
    if (skipping) {
      if (closing && name === skipping) skipping = undefined;
      continue;
    }
    if (!closing && SKIPPED.has(name) && !whole.endsWith('/>')) {
      skipping = name;
      continue;
    }
    if (name === 'pre') preDepth = Math.max(0, preDepth + (closing ? -1 : 1));
    if (name === 'br') out.push('\n');
    else if (BLOCKS.has(name)) out.push('\n\n');
    else if (CELLS.has(name) && !closing) out.push(' | ');
  }
  return out
    .join('')
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+$/u, '').replace(/^[ \t\u00a0]+(\|\s*)?/u, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * One help page: the `<title>`, and the text of the page body proper (`#DisplayArea`), without the
 * navigation, index and debug footer that every page repeats.
 */
export function helpPageToText(html: string): { title: string; text: string } {
  const titleMatch = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = titleMatch ? decodeEntities(titleMatch[1] ?? '').replace(/\s+/g, ' ').trim() : '';
  const start = html.search(/<div[^>]*\bid="DisplayArea"/);
  const endCandidates = ['<div id="SearchFrame"', '<div id="DonationFrame"', '<footer'].map((s) => html.indexOf(s, Math.max(0, start)));
  const end = Math.min(...endCandidates.filter((i) => i !== -1), html.length);
  const body = start === -1 ? html : html.slice(start, end);
  return { title, text: htmlToText(body) };
}


export interface RetrievalQuery {
  /** The index term, with the `--` between its levels turned into a space. */
  query: string;
  /** Ids of the pages the index links the term to (all of them ingested). */
  relevant: Set<string>;
}

/**
 * Which index terms become queries: `entries` are whole entries ("AutoCorrect function --
 * headings", almost always one page); `heads` are main terms alone ("AutoCorrect function"),
 * relevant to every page linked from any of their entries.
 */
export type QuerySet = 'entries' | 'heads';

/** The query an index term gives in a query set. */
export function queryOf(term: string, set: QuerySet): string {
  const levels = term.split(/\s*--\s*/).map((l) => l.trim()).filter(Boolean);
  return (set === 'heads' ? levels.slice(0, 1) : levels).join(' ').replace(/\s+/g, ' ');
}

/**
 * Queries from index terms. Entries are grouped by term (case and spacing ignored) so that a term
 * several entries link to different pages has them all as its relevant set. Terms with 1 to
 * `maxRelevant` ingested pages are eligible; `count` of them are drawn with a seeded shuffle.
 */
export function sampleQueries(
  index: IndexEntry[],
  ingested: ReadonlySet<string>,
  options: { set: QuerySet; count: number; seed: number; maxRelevant: number },
): { queries: RetrievalQuery[]; eligible: number } {
  const byTerm = new Map<string, { query: string; relevant: Set<string> }>();
  for (const { term, page } of index) {
    const query = queryOf(term, options.set);
    if (!query || !ingested.has(page)) continue;
    const key = query.toLocaleLowerCase('und');
    const group = byTerm.get(key) ?? { query, relevant: new Set<string>() };
    group.relevant.add(page);
    byTerm.set(key, group);
  }
  const eligible = [...byTerm.entries()]
    .filter(([, g]) => g.relevant.size >= 1 && g.relevant.size <= options.maxRelevant)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => g);
  const random = seededRandom(options.seed);
  for (let i = eligible.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [eligible[i], eligible[j]] = [eligible[j]!, eligible[i]!];
  }
  return { queries: eligible.slice(0, options.count), eligible: eligible.length };
}

/**
 * The paragraphs of one help page by their `id="par_id…"`: the ids come from the help's source
 * files (`.xhp`) and are shared by every translation of the page, so the same key in two languages
 * is the same paragraph translated. Text is taken up to the element's end (or the next block, for
 * the few paragraphs whose end tag is missing), inline markup dropped and whitespace collapsed.
 * An id that occurs twice in a page is ambiguous and left out.
 */
export function helpPageParagraphs(html: string): Map<string, string> {
  const paragraphs = new Map<string, string>();
  const repeated = new Set<string>();
  const element = /<(p|h[1-6])\b[^>]*?\bid="(par_id[^"]+)"[^>]*>([\s\S]*?)(?=<\/\1\s*>|<p\b|<h[1-6]\b|<div\b|<\/div\s*>|<\/td\s*>)/gi;
  for (let m = element.exec(html); m; m = element.exec(html)) {
    const id = m[2]!;
    const text = htmlToText(m[3] ?? '').replace(/\s+/g, ' ').trim();
    if (paragraphs.has(id) || repeated.has(id)) {
      paragraphs.delete(id);
      repeated.add(id);
    } else if (text) paragraphs.set(id, text);
  }
  return paragraphs;
}

/**
 * Every paragraph of a language's help, keyed `<page id>#<par_id>` (e.g.
 * `text/swriter/guide/calculate.html#par_id3149949`): the keys align paragraphs across languages.
 */
export async function loadHelpParagraphs(cacheDir: string, language: string): Promise<{ version: string; paragraphs: Map<string, string> }> {
  const { helpDir, version } = await ensureHelpPackage(cacheDir, language);
  const files = (await fs.readdir(path.join(helpDir, 'text'), { recursive: true }))
    .filter((f) => f.endsWith('.html'))
    .map((f) => path.posix.join('text', f.split(path.sep).join('/')))
    .sort();
  const paragraphs = new Map<string, string>();
  for (const id of files) {
    const html = await fs.readFile(path.join(helpDir, id), 'utf8');
    for (const [par, text] of helpPageParagraphs(html)) paragraphs.set(`${id}#${par}`, text);
  }
  return { version, paragraphs };
}
