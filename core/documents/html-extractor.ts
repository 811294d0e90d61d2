import { NAMED_CHARACTER_REFERENCES, WINDOWS_1252_C1 } from './html-entities.js';

const REFERENCE = /&(?:#(\d{1,8});?|#[xX]([0-9a-fA-F]{1,7});?|([A-Za-z][A-Za-z0-9]{1,31});)/g;

/**
 * Decodes character references: `&name;` for HTML 4's names (see html-entities.ts; unknown names
 * stay as written), and `&#N;` / `&#xH;` as browsers decode them: NUL, surrogates and numbers
 * past Unicode become U+FFFD, and 128–159 Windows-1252's characters.
 */
export function decodeCharacterReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (match, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) {
      const named = NAMED_CHARACTER_REFERENCES.get(name);
      return named === undefined ? match : String.fromCodePoint(named);
    }
    const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD';
    if (code >= 0x80 && code <= 0x9f) return String.fromCodePoint(WINDOWS_1252_C1[code - 0x80]!);
    return String.fromCodePoint(code);
  });
}

/** Elements whose content is never shown: skipped whole, nested ones of the same name included. */
const HIDDEN = new Set(['head', 'template', 'svg', 'select', 'datalist']);
/** Elements whose content is raw text up to their end tag (not markup); all but textarea are not shown. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Block elements that end a line rather than a paragraph. */
const LINE = new Set(['br', 'li', 'dt', 'dd', 'tr', 'option', 'caption', 'figcaption', 'summary', 'legend']);
/** Block elements: their start and end separate paragraphs. */
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset',
  'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html', 'main',
  'menu', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'tfoot', 'thead', 'ul',
]);

/** Separators between two pieces of text, weakest first; the strongest asked for between them wins. */
const Gap = { None: 0, Space: 1, Cell: 2, Line: 3, Paragraph: 4 } as const;
type Gap = (typeof Gap)[keyof typeof Gap];
const GAP_TEXT = ['', ' ', '\t', '\n', '\n\n'] as const;

/** Collects visible text: whitespace collapsed as a browser does (outside <pre>), gaps between blocks. */
class VisibleText {
  private readonly parts: string[] = [];
  private gap: Gap = Gap.None;

  separate(gap: Gap): void {
    if (gap > this.gap) this.gap = gap;
  }

  /** Text of the normal flow: runs of whitespace are one space. */
  flow(text: string): void {
    const collapsed = text.replace(/[ \t\n\r\f]+/g, ' ');
    if (collapsed.startsWith(' ')) this.separate(Gap.Space);
    const words = collapsed.trim();
    if (!words) return;
    this.put(words);
    if (collapsed.endsWith(' ')) this.separate(Gap.Space);
  }

  /** Text of a <pre>: kept as written. */
  preformatted(text: string): void {
    if (text) this.put(text);
  }

  private put(text: string): void {
    if (this.parts.length) this.parts.push(GAP_TEXT[this.gap]);
    this.parts.push(text);
    this.gap = Gap.None;
  }

  toString(): string {
    return this.parts
      .join('')
      .replace(/\u00a0/g, ' ')
      .replace(/[ \t]+$/gm, '')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
}

const TAG_NAME = /[A-Za-z][^\s/>]*/y;

/** The index just past the `>` that ends the tag whose attributes start at `from` (quoted values may hold `>`). */
function tagEnd(html: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < html.length; i++) {
    const c = html[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      // Quotes matter only around attribute values: right after `=` (spaces allowed).
      if (/=\s*$/.test(html.slice(Math.max(from, i - 16), i))) quote = c;
    } else if (c === '>') {
      return i + 1;
    }
  }
  return html.length;
}

/** Where the element opened just before `from` ends: after its matching end tag, counting nested ones. */
function elementEnd(html: string, name: string, from: number): number {
  const tags = new RegExp(`<(/?)${name}(?=[\\s/>])`, 'gi');
  tags.lastIndex = from;
  let depth = 1;
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    const end = tagEnd(html, m.index + m[0].length);
    const selfClosing = html[end - 2] === '/';
    if (m[1]) depth--;
    else if (!selfClosing) depth++;
    if (depth === 0) return end;
    tags.lastIndex = end;
  }
  // No end tag: a head ends where the body starts; anything else is taken to end at once.
  if (name === 'head') {
    const body = html.slice(from).search(/<body[\s>]/i);
    return body < 0 ? html.length : from + body;
  }
  return from;
}

/**
 * The visible text of an HTML document, as a reader sees it: no tags, comments, scripts, styles
 * or head; character references decoded; whitespace collapsed except in <pre>; block elements
 * (paragraphs, headings, list items, table rows…) separated by line or paragraph breaks, so the
 * chunker finds the document's paragraphs; table cells separated by a tab. A forgiving scanner,
 * not a full HTML5 tree builder: implied end tags need no handling, since only the boundaries of
 * blocks matter here, and they are the same with or without them.
 */
export function htmlToText(html: string): string {
  const out = new VisibleText();
  let pre = 0;
  let i = 0;
  const text = (raw: string) => {
    const decoded = decodeCharacterReferences(raw);
    if (pre > 0) out.preformatted(decoded);
    else out.flow(decoded);
  };
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text(html.slice(i));
      break;
    }
    if (lt > i) text(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    const next = html[lt + 1];
    if (next === '!' || next === '?') {
      i = tagEnd(html, lt + 2);
      continue;
    }
    const closing = next === '/';
    TAG_NAME.lastIndex = lt + (closing ? 2 : 1);
    const match = TAG_NAME.exec(html);
    if (!match) {
      // Not a tag: a literal "<" (as in "a < b").
      text('<');
      i = lt + 1;
      continue;
    }
    const name = match[0].toLowerCase();
    const end = tagEnd(html, TAG_NAME.lastIndex);
    const attributes = html.slice(TAG_NAME.lastIndex, end);
    i = end;
    if (closing) {
      if (name === 'pre' && pre > 0) pre--;
    } else if (RAW_TEXT.has(name)) {
      const close = html.slice(end).search(new RegExp(`</${name}[\\s/>]`, 'i'));
      const contentEnd = close < 0 ? html.length : end + close;
      if (name === 'textarea') text(html.slice(end, contentEnd));
      i = close < 0 ? html.length : tagEnd(html, contentEnd + 2 + name.length);
      continue;
    } else if (HIDDEN.has(name) || (/(^|\s)hidden(\s|=|\/?>|$)/i.test(attributes) && !VOID.has(name))) {
      if (!attributes.endsWith('/>')) i = elementEnd(html, name, end);
      continue;
    } else if (name === 'pre') {
      pre++;
      // A newline right after <pre> is not part of its content.
      if (html[i] === '\n') i++;
      else if (html.startsWith('\r\n', i)) i += 2;
    }
    if (!closing && (name === 'td' || name === 'th')) out.separate(Gap.Cell);
    else if (LINE.has(name)) out.separate(Gap.Line);
    else if (BLOCK.has(name)) out.separate(Gap.Paragraph);
  }
  return out.toString();
}
