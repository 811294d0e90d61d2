/** Phone numbers, international and in the national shapes of the supported countries. */
import { type Detector, digitsOf } from '../detector.js';

/** Country calling codes: 1 and 7, the assigned two-digit codes, and the three-digit ranges. */
const TWO_DIGIT_CODES = new Set([
  20, 27, 30, 31, 32, 33, 34, 36, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 56, 57, 58,
  60, 61, 62, 63, 64, 65, 66, 81, 82, 84, 86, 90, 91, 92, 93, 94, 95, 98,
]);
const THREE_DIGIT_PREFIXES = new Set([
  21, 22, 23, 24, 25, 26, 29, 35, 37, 38, 42, 50, 59, 67, 68, 69, 85, 87, 88, 96, 97, 99,
]);

function validCallingCode(d: string): boolean {
  const two = Number(d.slice(0, 2));
  return d[0] === '1' || d[0] === '7' || TWO_DIGIT_CODES.has(two) || THREE_DIGIT_PREFIXES.has(two);
}

const PHONE_KEYWORD =
  /(?<!\p{L})(?:tel|tél|phone|téléphone|telefo|teléfo|telefoon|telefon|телефон|тел|mobile?|mobiel|móvil|movil|cell|portable|handy|gsm|fax|whatsapp|sms|call|bel|appel|llam|chiam|sun[aă]|позвън|обад|contact|kontakt|contatt|контакт)/iu;
/** Words before a number that make it a reference rather than a phone number. */
const REFERENCE_KEYWORD =
  /(?<!\p{L})(?:order|invoice|referen|bestel|factuur|commande|factur|bestell|rechnung|pedido|ordine|fattura|поръчк|фактур|comand|account|konto|rekening|compte|cuenta|conto|сметк|(?:ref|isbn|issn|ean|sku|kvk|btw|vat|iva|tva|iban|cont)(?!\p{L}))|(?:(?<!\p{L})(?:n[°ºo]|nr)|№|#|nummer|number|numéro|número|numero|номер)\.?\s*:?\s*$/iu;

interface PhonePiece {
  /** Offsets within the candidate. */
  start: number;
  end: number;
  digits: string;
  plus: boolean;
  paren: boolean;
}

function phonePieces(candidate: string): PhonePiece[] {
  const pieces: PhonePiece[] = [];
  for (const m of candidate.matchAll(/\(\+?\d{1,5}\)|\+ ?\d{1,12}|\d{1,12}/g)) {
    pieces.push({
      start: m.index,
      end: m.index + m[0].length,
      digits: digitsOf(m[0]),
      plus: m[0].includes('+'),
      paren: m[0].startsWith('('),
    });
  }
  return pieces;
}

/**
 * Whether pieces form a phone number. International numbers (+ or 00 and a calling code) need
 * 8-15 digits. National numbers need a known shape: a trunk 0 and 9-11 digits (NL, BE, FR, DE,
 * IT, BG, RO, UK), 3-3-4 (US, IT mobile), 3-7 (IT mobile), or 9 digits from 6-9 in 3-2-2-2 or
 * 2-3-2-2 (ES); separators must agree after the first, so dates and times do not qualify. A
 * number written without separators, and the ES 3-3-3 form, also need a phone keyword; after
 * one, 7-11 digits in groups of two or more count as well.
 */
function plausiblePhone(pieces: PhonePiece[], separators: string[], keyword: boolean): boolean {
  const first = pieces[0];
  if (!first) return false;
  const international = first.plus || (!first.paren && first.digits.startsWith('00'));
  if (international) {
    const digits = pieces
      .filter((p, i) => !(i > 0 && p.paren && p.digits === '0'))
      .map((p) => p.digits)
      .join('')
      .replace(/^00/, '');
    const spaced = pieces.length > 1;
    return digits.length >= 8 && digits.length <= 15 && validCallingCode(digits) && (first.plus || spaced || keyword);
  }
  if (pieces.some((p, i) => p.plus || (p.paren && i > 0))) return false;
  const digits = pieces.map((p) => p.digits).join('');
  if (pieces.length === 1) return keyword && digits.length >= 9 && digits.length <= 12;
  const rest = separators.slice(1);
  if (rest.some((s) => s !== rest[0]) || separators.some((s, i) => s === '' && !(i === 0 && first.paren))) return false;
  if (looksLikeDate(pieces)) return false;
  const shape = pieces.map((p) => p.digits.length).join('-');
  const noSingleDigits = pieces.every((p) => p.digits.length >= 2);
  // Twelve digits only in the German two-part form ("03322 1234567"), so that a trailing
  // neighbour ("020 123 4567 06") is not taken in.
  const trunk =
    /^0[1-9]/.test(digits) &&
    digits.length >= 9 &&
    (digits.length <= 11 || (digits.length === 12 && pieces.length === 2)) &&
    first.digits.length <= 5 &&
    noSingleDigits;
  const northAmerican = (shape === '3-3-4' && /^[2-9]/.test(digits)) || (shape === '1-3-3-4' && digits[0] === '1');
  const italianMobile = shape === '3-7' && digits[0] === '3';
  const spanish = /^[6-9]/.test(digits) && (shape === '3-2-2-2' || shape === '2-3-2-2' || (shape === '3-3-3' && keyword));
  return trunk || northAmerican || italianMobile || spanish || (keyword && noSingleDigits && digits.length >= 7 && digits.length <= 11);
}

/** Day-month-year or year-month-day, which a nearby phone keyword must not turn into a number. */
function looksLikeDate(pieces: PhonePiece[]): boolean {
  if (pieces.length !== 3) return false;
  const [a, b, c] = pieces.map((p) => p.digits);
  if (a === undefined || b === undefined || c === undefined) return false;
  const dayMonth = (x: string, y: string): boolean =>
    x.length <= 2 && y.length <= 2 && Number(x) >= 1 && Number(x) <= 31 && Number(y) >= 1 && Number(y) <= 12;
  return (
    ((c.length === 2 || c.length === 4) && (dayMonth(a, b) || dayMonth(b, a))) ||
    (a.length === 4 && dayMonth(c, b))
  );
}

export const PHONE: Detector = {
  type: 'PHONE',
  // Digit groups joined by one separator each, or touching a parenthesised group; at most eight.
  pattern:
    /(?<![\p{L}\p{N}_@+.\-/])(?:\+ ?\d{1,12}|\(\+\d{1,4}\)|\(\d{1,5}\)|\d{1,12})(?:(?:[ \u00a0\u202f.\-/]|(?<=\))|(?=\())(?:\(\d{1,5}\)|\d{1,12})){0,7}(?![\p{L}\p{N}]|[.,]\p{N})/gu,
  exhaustive: true,
  accept(match, text) {
    const candidate = match[0];
    // Every accepted form has at least seven digits.
    if (digitsOf(candidate).length < 7) return null;
    const pieces = phonePieces(candidate);
    // leadingDigits[n]: the digits in the first n pieces.
    const leadingDigits = [0];
    for (const p of pieces) leadingDigits.push((leadingDigits[leadingDigits.length - 1] ?? 0) + p.digits.length);
    const before = text.slice(Math.max(0, match.index - 32), match.index);
    const keyword = PHONE_KEYWORD.test(before);
    if (!keyword && !candidate.startsWith('+') && REFERENCE_KEYWORD.test(before)) return null;
    // The candidate may run into a neighbouring number ("06 12345678 2 keer", "020 123 4567
    // 06 12345678"): take its longest leading run of pieces that is a phone number; scanning
    // resumes after it. Runs starting inside the candidate are not tried: they would find
    // phone-shaped fragments in longer numbers.
    for (let length = pieces.length; length >= 1; length--) {
      // 7-15 digits, plus two for a leading 00 or a "(0)".
      const digitCount = leadingDigits[length] ?? 0;
      if (digitCount < 7 || digitCount > 18) continue;
      const run = pieces.slice(0, length);
      const separators = run.slice(1).map((p, i) => candidate.slice(run[i]?.end ?? 0, p.start).replace(/[()]/g, ''));
      const last = run[run.length - 1];
      if (last && plausiblePhone(run, separators, keyword)) {
        return { start: match.index, end: match.index + last.end };
      }
    }
    return null;
  },
};
