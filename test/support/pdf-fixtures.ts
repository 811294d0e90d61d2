/**
 * PDFs built at test time with pdf-lib, so tests exercise the real parser on real files without
 * binary fixtures in the repository. Standard fonts are WinAnsi-encoded: Latin text only.
 */
import { PDFDocument, PDFHexString, StandardFonts, rgb } from 'pdf-lib';

const A4: [number, number] = [595, 842];

/** Lines of each page of `multilingualPdf`; every line is drawn as its own paragraph. */
export const MULTILINGUAL_PAGES = [
  ['Lore keeps the documents of each tenant in knowledge bases.', 'Every document is split into chunks before it is indexed.'],
  [
    'Les documents sont découpés en fragments avant leur indexation.',
    'Le cœur du service, c’est la recherche : une requête en français trouve aussi les passages en anglais.',
  ],
  ['The third page closes the document with a short summary.'],
] as const;

async function drawPages(doc: PDFDocument, pages: readonly (readonly string[])[]): Promise<void> {
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage(A4);
    lines.forEach((line, i) => {
      // Two line heights apart, as paragraphs are in a typeset document.
      page.drawText(line, { x: 50, y: 780 - i * 40, size: 11, font });
    });
  }
}

/** Three pages: English, French (accents, œ, ’), English. */
export async function multilingualPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  await drawPages(doc, MULTILINGUAL_PAGES);
  return doc.save();
}

/** `pageCount` pages of dense text: slow enough to parse that a small time limit is exceeded. */
export async function largePdf(pageCount: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let p = 0; p < pageCount; p++) {
    const page = doc.addPage(A4);
    for (let line = 0; line < 60; line++) {
      page.drawText(`Page ${p + 1}, line ${line + 1}: retrieval quality depends on clean chunk boundaries.`, {
        x: 40,
        y: 800 - line * 12,
        size: 9,
        font,
      });
    }
  }
  return doc.save();
}

/** A page holding only a drawn rectangle: a valid PDF without a text layer. */
export async function imageOnlyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage(A4).drawRectangle({ x: 100, y: 400, width: 300, height: 200, color: rgb(0.2, 0.4, 0.8) });
  return doc.save();
}

/**
 * A real PDF cut short and with bytes flipped after its header: it still starts with `%PDF-`, so
 * only the parser, not a magic-number check, can tell it is broken.
 */
export async function corruptPdf(): Promise<Uint8Array> {
  const whole = await multilingualPdf();
  const cut = whole.slice(0, Math.floor(whole.length * 0.6));
  for (let i = 64; i < cut.length; i += 7) cut[i] = (cut[i] ?? 0) ^ 0xa5;
  return cut;
}

/** Plain text that merely claims to be a PDF by its file name. */
export function notAPdf(): Uint8Array {
  return new TextEncoder().encode('Quarterly report\n\nThis is a plain text file, not a PDF.\n');
}

/**
 * A PDF whose trailer declares standard-handler encryption with a user password nobody knows, so a
 * reader must ask for the password before it can read any page.
 */
export async function passwordProtectedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  await drawPages(doc, [['Confidential figures.']]);
  const { context } = doc;
  const encrypt = context.obj({
    Filter: 'Standard',
    V: 1,
    R: 2,
    P: -44,
    O: PDFHexString.of('11'.repeat(32)),
    U: PDFHexString.of('22'.repeat(32)),
  });
  context.trailerInfo.Encrypt = context.register(encrypt);
  const id = PDFHexString.of('0123456789abcdef0123456789abcdef');
  context.trailerInfo.ID = context.obj([id, id]);
  return doc.save({ useObjectStreams: false });
}
