import { decodeCharacterReferences } from './html-extractor.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const BLOCK_QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[[ xX]\][ \t]+)?/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const REFERENCE_DEFINITION = /^ {0,3}\[([^\]]+)\]:[ \t]*\S/;
const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*\s*\/?>/g;
const AUTOLINK = /<((?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)|(?:[^\s<>@]+@[^\s<>@]+))>/g;
/** Private-use characters that stand for what must not be read as markup again (code spans, escapes). */
const HOLD = /\uE000(\d+)\uE001/g;

/**
 * The text of a Markdown document without its markup, for indexing: headings, paragraphs, list
 * items and table rows keep their words and become paragraphs or lines (a paragraph's wrapped
 * lines are joined, so the chunker sees its sentences whole); emphasis, heading and list markers,
 * block-quote markers and HTML tags go; a link or an image keeps its text (its URL goes, unless
 * the URL is the text, as in `<https://…>`); code keeps its text (fences and backticks go), since
 * identifiers are what a reader searches for; reference definitions, front matter, comments and
 * thematic breaks go; escapes and character references are resolved. Not a full CommonMark
 * parser: it reads the line-level structure and the common inline forms, which is what the
 * indexed text depends on.
 */
export function markdownToText(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const references = new Set<string>();
  for (const line of lines) {
    const definition = REFERENCE_DEFINITION.exec(line);
    if (definition) references.add(normalizeLabel(definition[1]!));
  }
  const blocks: string[] = [];
  // The block being read: its lines, each either joined to the one before (a paragraph's wrapped
  // lines) or starting a line of its own (list items, table rows).
  let current = '';
  const add = (text: string, ownLine: boolean) => {
    if (text) current = current ? `${current}${ownLine ? '\n' : ' '}${text}` : text;
  };
  const endBlock = () => {
    if (current.trim()) blocks.push(current);
    current = '';
  };
  let i = frontMatterEnd(lines);
  let inComment = false;
  let table = false;
  for (; i < lines.length; i++) {
    let line = lines[i]!;
    if (inComment) {
      const close = line.indexOf('-->');
      if (close < 0) continue;
      inComment = false;
      line = line.slice(close + 3);
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const code: string[] = [];
      const marker = fence[1]!;
      const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
      for (i++; i < lines.length && !close.test(lines[i]!); i++) code.push(lines[i]!);
      endBlock();
      add(code.join('\n').replace(/\s+$/, ''), true);
      endBlock();
      continue;
    }
    while (BLOCK_QUOTE.test(line)) line = line.replace(BLOCK_QUOTE, '');
    const open = line.lastIndexOf('<!--');
    if (open >= 0 && line.indexOf('-->', open) < 0) {
      inComment = true;
      line = line.slice(0, open);
    }
    line = line.replace(/<!--[\s\S]*?-->/g, '');
    if (!line.trim()) {
      endBlock();
      table = false;
      continue;
    }
    if (REFERENCE_DEFINITION.test(line)) continue;
    if (ATX_HEADING.test(line)) {
      endBlock();
      add(inline(line.replace(ATX_HEADING, '').replace(/(?:^|[ \t]+)#+[ \t]*$/, ''), references), false);
      endBlock();
      continue;
    }
    if (isTableDelimiter(line) && (table || current)) {
      table = true;
      continue;
    }
    if (current && SETEXT_UNDERLINE.test(line)) {
      // The paragraph so far was a heading.
      endBlock();
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      endBlock();
      continue;
    }
    if (table || (line.includes('|') && isTableDelimiter(lines[i + 1] ?? ''))) {
      add(tableRow(line, references), true);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) add(inline(line.slice(item[0].length), references), true);
    else add(inline(line.trim(), references), false);
  }
  endBlock();
  return blocks.join('\n\n');
}

function isTableDelimiter(line: string): boolean {
  return TABLE_DELIMITER.test(line) && line.includes('|') && line.includes('-');
}

/** Front matter (YAML between `---` lines at the very start) describes the file; it is not its text. */
function frontMatterEnd(lines: string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) if (/^(?:---|\.\.\.)[ \t]*$/.test(lines[i]!)) return i + 1;
  return 0;
}

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

function tableRow(line: string, references: Set<string>): string {
  const cells = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => inline(cell.trim(), references));
  return cells.join('\t');
}

/** One line's inline markup resolved to its text. */
function inline(text: string, references: Set<string>): string {
  const held: string[] = [];
  const hold = (s: string) => `\uE000${held.push(s) - 1}\uE001`;
  let s = text
    // Code spans keep their text verbatim.
    .replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, __, code: string) => hold(code.replace(/^ (.*) $/, '$1')))
    .replace(/\\([!-/:-@[-`{-~])/g, (_, c: string) => hold(c))
    .replace(AUTOLINK, (_, target: string) => hold(target.replace(/^mailto:/i, '')));
  s = s
    .replace(HTML_TAG, '')
    // Images and links keep their text: inline `(url "title")`, full `[ref]` and collapsed `[]` references.
    .replace(/!?\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g, '$1')
    .replace(/!?\[([^\]]*)\]\[([^\]]*)\]/g, '$1')
    .replace(/!?\[([^\]]+)\](?!\()/g, (match, label: string) => (references.has(normalizeLabel(label)) ? label : match))
    // Emphasis and strikethrough: `*`, `**`, `***` anywhere; `_` only at word boundaries (snake_case stays).
    .replace(/(\*{1,3})(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|[^\p{L}\p{N}_])(_{1,3})(?=\S)([\s\S]*?\S)\2(?![\p{L}\p{N}_])/gu, '$1$3')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
    // A hard line break's marker (a trailing backslash, or two spaces).
    .replace(/\\$| {2,}$/, '');
  s = decodeCharacterReferences(s);
  return s.replace(HOLD, (match, n: string) => held[Number(n)] ?? match);
}
