import { ValidationError } from '../errors.js';
import { WINDOWS_1252_C1 } from './html-entities.js';
import { htmlToText } from './html-extractor.js';
import { markdownToText } from './markdown-extractor.js';

/**
 * The file types an upload may have (docs/api.md, "Upload"): each with the file-name extensions
 * that stand for it and the other names clients give it. The portal's file input and the CLI's
 * corpus loader take the same extensions.
 */
export const UPLOAD_FILE_TYPES = [
  { type: 'text/plain', extensions: ['.txt', '.text'], aliases: [] },
  { type: 'text/markdown', extensions: ['.md', '.markdown'], aliases: ['text/x-markdown'] },
  { type: 'text/html', extensions: ['.html', '.htm'], aliases: [] },
  { type: 'application/pdf', extensions: ['.pdf'], aliases: [] },
] as const;

export type UploadFileType = (typeof UPLOAD_FILE_TYPES)[number]['type'];
export type TextFileType = Exclude<UploadFileType, 'application/pdf'>;

/** "text/plain, text/markdown, text/html or application/pdf", for messages and documentation. */
export const UPLOAD_FILE_TYPE_LIST = `${UPLOAD_FILE_TYPES.slice(0, -1)
  .map((t) => t.type)
  .join(', ')} or ${UPLOAD_FILE_TYPES[UPLOAD_FILE_TYPES.length - 1]!.type}`;

/** Types that say only "some bytes": the file's name, then its content, tell what it is. */
const UNTYPED = new Set(['', 'application/octet-stream']);

function byName(type: string): UploadFileType | undefined {
  return UPLOAD_FILE_TYPES.find((t) => t.type === type || (t.aliases as readonly string[]).includes(type))?.type;
}

/** The upload type a file name's extension stands for (case-insensitive), if any. */
export function fileTypeOfName(fileName: string | null): UploadFileType | undefined {
  const extension = /\.[^./\\]+$/.exec(fileName ?? '')?.[0].toLowerCase();
  return extension ? UPLOAD_FILE_TYPES.find((t) => (t.extensions as readonly string[]).includes(extension))?.type : undefined;
}

/** The extension a stored file of this type is named with when it has no name of its own. */
export function extensionOf(type: string): string {
  return UPLOAD_FILE_TYPES.find((t) => t.type === type)?.extensions[0] ?? '.bin';
}

/**
 * The type of an uploaded file: its declared media type when that is one Lore reads; when the
 * declared type says nothing (`application/octet-stream`, or none), the type its name's extension
 * stands for, else the type its content shows. Undefined for anything else: another declared type
 * is taken at its word, and refused.
 */
export function uploadFileType(declared: string, fileName: string | null, data: Uint8Array): UploadFileType | undefined {
  if (!UNTYPED.has(declared)) return byName(declared);
  return fileTypeOfName(fileName) ?? sniffFileType(data);
}

/**
 * What a file's bytes show it to be, after the WHATWG MIME Sniffing standard's rules: a PDF by its
 * signature, HTML by a leading tag the standard lists, text when it is UTF-16 with a byte-order
 * mark or has none of the bytes that only binary formats hold (C0 controls other than whitespace
 * and ESC); anything else is binary (undefined).
 */
export function sniffFileType(data: Uint8Array): UploadFileType | undefined {
  if (Buffer.from(data.subarray(0, 5)).toString('latin1') === '%PDF-') return 'application/pdf';
  if (utf16ByteOrder(data)) return 'text/plain';
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)) return undefined;
  }
  const head = Buffer.from(data.subarray(0, 512)).toString('latin1').replace(/^(?:\xef\xbb\xbf)?[\t\n\f\r ]*/, '');
  return HTML_SIGNATURE.test(head) ? 'text/html' : 'text/plain';
}

/** WHATWG MIME Sniffing §7.1: the tags that make a resource HTML, followed by a space or `>`. */
const HTML_SIGNATURE = /^(?:<!doctype html|<html|<head|<script|<iframe|<h1|<div|<font|<table|<a|<style|<title|<b|<body|<br|<p|<!--)[\t\n\f\r >]/i;

function utf16ByteOrder(data: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (data[0] === 0xff && data[1] === 0xfe) return 'utf-16le';
  if (data[0] === 0xfe && data[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * A text file's characters: UTF-16 when it starts with a UTF-16 byte-order mark, else UTF-8 (a BOM
 * is dropped), else the encoding an HTML file declares in its first 1,024 bytes, else
 * Windows-1252, the usual legacy encoding.
 */
export function decodeText(data: Uint8Array, type: TextFileType = 'text/plain'): string {
  const utf16 = utf16ByteOrder(data);
  if (utf16) {
    // Not silently altered: a file its byte-order mark calls UTF-16 that is not (an odd byte, an unpaired surrogate) is refused.
    try {
      return new TextDecoder(utf16, { fatal: true }).decode(data);
    } catch {
      throw new ValidationError([{ field: 'file', message: 'must be valid UTF-16, as its byte-order mark says (it holds an odd byte or an unpaired surrogate)' }]);
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    const declared = type === 'text/html' ? declaredCharset(data) : undefined;
    return declared ? new TextDecoder(declared).decode(data) : windows1252(data);
  }
}

function windows1252(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!));
}

/** The encoding a `<meta charset>` or `<meta http-equiv content="…; charset=…">` names, when TextDecoder knows it. */
function declaredCharset(data: Uint8Array): string | undefined {
  const head = Buffer.from(data.subarray(0, 1024)).toString('latin1');
  const label = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i.exec(head)?.[1];
  if (!label) return undefined;
  try {
    const encoding = new TextDecoder(label).encoding;
    // Windows-1252 (and the labels that mean it, such as iso-8859-1) is decoded by windows1252.
    return encoding === 'windows-1252' ? undefined : encoding;
  } catch {
    return undefined;
  }
}

/** The text of a text file of this type, for indexing: Markdown and HTML without their markup. */
export function textOfFile(type: TextFileType, data: Uint8Array): string {
  const text = decodeText(data, type);
  if (type === 'text/markdown') return markdownToText(text);
  if (type === 'text/html') return htmlToText(text);
  return text;
}
