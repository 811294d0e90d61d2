/**
 * Replaces personal data in document text with typed placeholders before it is indexed.
 *
 * Placeholders: `[EMAIL]`, `[PHONE]`, `[IBAN]`, `[CARD]` (payment card), `[IP]` (IPv4 and IPv6),
 * `[NATIONAL_ID]` (every national identifier below).
 *
 * National identifiers, each validated by its check digit or letter:
 * NL BSN, BE national register number, FR NIR, ES DNI/NIE, IT codice fiscale, BG EGN, RO CNP,
 * DE Steuer-ID. BSN, EGN and Steuer-ID are only taken after their keyword ("BSN", "ЕГН",
 * "Steuer-ID", ...): their checks pass about one random 9-11-digit number in ten, too many for
 * numbers that ordinary text is full of.
 * Left out, because they have no check digit and their shape matches ordinary codes: the UK
 * National Insurance number, the US SSN, passport and identity-card numbers, driving licences,
 * the Bulgarian ЛНЧ; and company identifiers (VAT, KvK, SIREN, partita IVA), which are not
 * personal data. MAC addresses are left alone too.
 *
 * Detectors run one after another, most specific first, and each sees the previous one's output:
 * digits that became `[IBAN]` can no longer be read as a phone number. Every quantifier is
 * bounded, so each match attempt takes a bounded number of steps and a scan stays linear in the
 * input; no pattern can backtrack catastrophically.
 */

export const PII_TYPES = ['EMAIL', 'PHONE', 'IBAN', 'CARD', 'IP', 'NATIONAL_ID'] as const;
export type PiiType = (typeof PII_TYPES)[number];

export interface AnonymizationResult {
  text: string;
  /** How many values of each type were replaced; types that did not occur are absent. */
  counts: Partial<Record<PiiType, number>>;
}

interface Span {
  start: number;
  end: number;
}

interface Detector {
  type: PiiType;
  /** Global pattern finding candidates; `accept` decides and may narrow the span. */
  pattern: RegExp;
  accept: (match: RegExpExecArray, text: string) => Span | null;
  /**
   * Set when `accept` already weighed every part of a rejected match; otherwise the search
   * resumes one character in, so a greedy candidate cannot hide a real value inside it.
   */
  exhaustive?: boolean;
}

export function anonymize(text: string): AnonymizationResult {
  const counts: Partial<Record<PiiType, number>> = {};
  let current = text;
  for (const detector of DETECTORS) {
    current = replaceDetected(current, detector, counts);
  }
  return { text: current, counts };
}

function replaceDetected(text: string, detector: Detector, counts: Partial<Record<PiiType, number>>): string {
  const { pattern, type } = detector;
  const parts: string[] = [];
  let copied = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const span = detector.accept(match, text);
    if (span) {
      parts.push(text.slice(copied, span.start), `[${type}]`);
      copied = span.end;
      counts[type] = (counts[type] ?? 0) + 1;
      pattern.lastIndex = span.end;
    } else if (!detector.exhaustive || match[0].length === 0) {
      pattern.lastIndex = match.index + 1;
    }
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

const whole = (match: RegExpExecArray): Span => ({ start: match.index, end: match.index + match[0].length });

/** The span of capture group 1 of a pattern with the `d` flag. */
function group1(match: RegExpExecArray): Span | null {
  const indices = match.indices?.[1];
  return indices ? { start: indices[0], end: indices[1] } : null;
}

const digitsOf = (s: string): string => s.replace(/\D/g, '');

/** Remainder of a long decimal string, digit by digit, so no precision is lost. */
function mod(decimal: string, divisor: number): number {
  let remainder = 0;
  for (const c of decimal) remainder = (remainder * 10 + Number(c)) % divisor;
  return remainder;
}

function isDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

// ---------------------------------------------------------------------------------------------
// E-mail

const EMAIL: Detector = {
  type: 'EMAIL',
  pattern:
    /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.){1,8}\p{L}{2,24}(?![\p{L}\p{N}-])/gu,
  accept: whole,
};

// ---------------------------------------------------------------------------------------------
// IBAN

/** IBAN length by country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HN: 28, HR: 21, HU: 28,
  IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20,
  LU: 20, LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28,
  NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24,
  SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26,
  UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
};

/** ISO 7064 mod 97-10 over the rearranged IBAN, letters counted as 10..35. */
function validIban(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let numeric = '';
  for (const c of rearranged) numeric += c >= 'A' ? String(c.charCodeAt(0) - 55) : c;
  return mod(numeric, 97) === 1;
}

const IBAN: Detector = {
  type: 'IBAN',
  // Greedy on purpose: the country's length decides where the IBAN ends.
  pattern: /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,32}/giu,
  accept(match) {
    const candidate = match[0].toUpperCase();
    const length = IBAN_LENGTHS[candidate.slice(0, 2)];
    if (!length) return null;
    let compact = '';
    let end = 0;
    while (end < candidate.length && compact.length < length) {
      const c = candidate[end] ?? '';
      if (c !== ' ') compact += c;
      end++;
    }
    // The IBAN must end where a group ends, not in the middle of a longer code.
    if (compact.length < length || /[A-Z0-9]/.test(candidate[end] ?? '')) return null;
    return validIban(compact) ? { start: match.index, end: match.index + end } : null;
  },
};

// ---------------------------------------------------------------------------------------------
// National identifiers

function keywordBefore(keywords: string): string {
  // The keyword, then up to 20 characters of ": ", "nr.", "(" and the like before the number.
  return `(?<!\\p{L})(?:${keywords})(?!\\p{L})[^\\p{N}\\n]{0,20}?`;
}

/** NL BSN: 11-proof (9·d1 + 8·d2 + … + 2·d8 − d9 divisible by 11). */
function validBsn(raw: string): boolean {
  const d = digitsOf(raw).padStart(9, '0');
  if (d.length !== 9 || /^0+$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(d[i]) * (9 - i);
  sum -= Number(d[8]);
  return sum % 11 === 0;
}

const NL_BSN: Detector = {
  type: 'NATIONAL_ID',
  pattern: new RegExp(
    `${keywordBefore('bsn(?:-?nummer)?|burgerservicenummer|sofi-?nummer')}(\\d{4}\\.\\d{2}\\.\\d{3}|\\d{3}[ .]\\d{3}[ .]\\d{3}|\\d{8,9})(?![\\p{N}])`,
    'giud',
  ),
  accept: (match) => (validBsn(match[1] ?? '') ? group1(match) : null),
};

/** BE national register number: YYMMDD SSS CC, CC = 97 − (first nine mod 97), with a 2 prefixed from 2000. */
function validBelgian(raw: string): boolean {
  const d = digitsOf(raw);
  const month = Number(d.slice(2, 4)) % 20;
  const day = Number(d.slice(4, 6));
  // Month and day may be 0 when unknown; +20 and +40 mark bis numbers.
  if (Number(d.slice(2, 4)) > 52 || month > 12 || day > 31) return false;
  const check = Number(d.slice(9));
  const base = d.slice(0, 9);
  return 97 - mod(base, 97) === check || 97 - mod(`2${base}`, 97) === check;
}

const BE_NATIONAL_NUMBER: Detector = {
  type: 'NATIONAL_ID',
  pattern: /(?<![\p{L}\p{N}+.\-/])\d{2}\.?\d{2}\.?\d{2}[-. ]?\d{3}[-. ]?\d{2}(?![\p{L}\p{N}]|[.,\-/]\p{N})/gu,
  accept: (match) => (validBelgian(match[0]) ? whole(match) : null),
};

/** FR NIR: 13 characters and a key of 97 − (number mod 97); Corsica's 2A/2B count as 19/18. */
function validNir(raw: string): boolean {
  const compact = raw.replace(/[ .]/g, '').toUpperCase();
  const month = Number(compact.slice(3, 5));
  if (!((month >= 1 && month <= 12) || (month >= 20 && month <= 42) || month >= 50)) return false;
  const number = compact.slice(0, 13).replace('2A', '19').replace('2B', '18');
  return 97 - mod(number, 97) === Number(compact.slice(13));
}

const FR_NIR: Detector = {
  type: 'NATIONAL_ID',
  pattern: /(?<![\p{L}\p{N}+])[1-478][ .]?\d{2}[ .]?\d{2}[ .]?(?:\d{2}|2[AB])[ .]?\d{3}[ .]?\d{3}[ .]?\d{2}(?![\p{L}\p{N}])/gu,
  accept: (match) => (validNir(match[0]) ? whole(match) : null),
};

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** ES DNI (8 digits) and NIE (X/Y/Z + 7 digits): the letter is the number mod 23. */
function validDni(raw: string): boolean {
  const compact = raw.replace(/[-. ]/g, '');
  const letter = compact.slice(-1);
  const number = compact.slice(0, -1).replace(/^X/, '0').replace(/^Y/, '1').replace(/^Z/, '2');
  return DNI_LETTERS[Number(number) % 23] === letter;
}

const ES_DNI: Detector = {
  type: 'NATIONAL_ID',
  // Upper case only: "12345678 a" is a number followed by a Spanish word.
  pattern: /(?<![\p{L}\p{N}+])(?:\d{8}|\d{2}\.\d{3}\.\d{3}|[XYZ][- ]?\d{7})[- ]?[A-Z](?![\p{L}\p{N}])/gu,
  accept: (match) => (validDni(match[0]) ? whole(match) : null),
};

/** IT codice fiscale: the 16th character is a weighted sum of the first 15, mod 26. */
const CF_ODD: Record<string, number> = {
  0: 1, 1: 0, 2: 5, 3: 7, 4: 9, 5: 13, 6: 15, 7: 17, 8: 19, 9: 21,
  A: 1, B: 0, C: 5, D: 7, E: 9, F: 13, G: 15, H: 17, I: 19, J: 21, K: 2, L: 4, M: 18, N: 20, O: 11,
  P: 3, Q: 6, R: 8, S: 12, T: 14, U: 16, V: 10, W: 22, X: 25, Y: 24, Z: 23,
};

function validCodiceFiscale(raw: string): boolean {
  const cf = raw.toUpperCase();
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const c = cf[i] ?? '';
    // Positions 1, 3, 5, ... (index 0, 2, 4, ...) use the "odd" table.
    sum += i % 2 === 0 ? (CF_ODD[c] ?? 0) : c <= '9' ? Number(c) : c.charCodeAt(0) - 65;
  }
  return String.fromCharCode(65 + (sum % 26)) === cf[15];
}

const IT_CODICE_FISCALE: Detector = {
  type: 'NATIONAL_ID',
  // Digits may be replaced by LMNPQRSTUV (omocodia); the month is one of ABCDEHLMPRST.
  pattern:
    /(?<![\p{L}\p{N}])[A-Z]{6}[\dLMNPQRSTUV]{2}[ABCDEHLMPRST][\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{3}[A-Z](?![\p{L}\p{N}])/giu,
  accept: (match) => (validCodiceFiscale(match[0]) ? whole(match) : null),
};

/** BG EGN: YYMMDD (month +20 for the 1800s, +40 from 2000), region, check digit. */
function validEgn(d: string): boolean {
  const yy = Number(d.slice(0, 2));
  let month = Number(d.slice(2, 4));
  let year = 1900 + yy;
  if (month > 40) {
    month -= 40;
    year = 2000 + yy;
  } else if (month > 20) {
    month -= 20;
    year = 1800 + yy;
  }
  if (!isDate(year, month, Number(d.slice(4, 6)))) return false;
  const weights = [2, 4, 8, 5, 10, 9, 7, 3, 6];
  const sum = weights.reduce((acc, w, i) => acc + w * Number(d[i]), 0);
  return (sum % 11) % 10 === Number(d[9]);
}

const BG_EGN: Detector = {
  type: 'NATIONAL_ID',
  pattern: new RegExp(`${keywordBefore('егн|egn|единен граждански номер')}(\\d{10})(?![\\p{N}])`, 'giud'),
  accept: (match) => (validEgn(match[1] ?? '') ? group1(match) : null),
};

/** A 978/979 number with a valid ISBN-13 check digit is a book, whatever else it resembles. */
function isIsbn13(d: string): boolean {
  if (d.length !== 13 || !/^97[89]/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

/** RO CNP: sex/century, YYMMDD, county, serial, check digit over weights 279146358279. */
function validCnp(d: string): boolean {
  if (isIsbn13(d)) return false;
  const s = Number(d[0]);
  const century = s <= 2 ? 1900 : s <= 4 ? 1800 : s <= 6 ? 2000 : 1900;
  const yy = Number(d.slice(1, 3));
  const month = Number(d.slice(3, 5));
  const day = Number(d.slice(5, 7));
  // 7-9 are residents, whose century the number does not say.
  const dateOk = s >= 7 ? isDate(1900 + yy, month, day) || isDate(2000 + yy, month, day) : isDate(century + yy, month, day);
  const county = Number(d.slice(7, 9));
  if (!dateOk || !((county >= 1 && county <= 48) || county === 51 || county === 52) || d.slice(9, 12) === '000') {
    return false;
  }
  const weights = [2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9];
  const remainder = weights.reduce((acc, w, i) => acc + w * Number(d[i]), 0) % 11;
  return (remainder === 10 ? 1 : remainder) === Number(d[12]);
}

const RO_CNP: Detector = {
  type: 'NATIONAL_ID',
  pattern: /(?<![\p{L}\p{N}+])[1-9]\d{12}(?![\p{L}\p{N}])/gu,
  accept: (match) => (validCnp(match[0]) ? whole(match) : null),
};

/**
 * DE Steuer-ID: 11 digits, no leading 0, in the first ten one digit occurs twice or three times
 * (three not in a row), and an ISO 7064 MOD 11,10 check digit.
 */
function validSteuerId(raw: string): boolean {
  const d = digitsOf(raw);
  if (d.length !== 11 || d[0] === '0') return false;
  const first10 = d.slice(0, 10);
  const occurrences = new Map<string, number>();
  for (const c of first10) occurrences.set(c, (occurrences.get(c) ?? 0) + 1);
  const repeated = [...occurrences.values()].filter((n) => n > 1);
  if (repeated.length !== 1 || (repeated[0] ?? 0) > 3 || /(\d)\1\1/.test(first10)) return false;
  let product = 10;
  for (const c of first10) {
    let sum = (Number(c) + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = 11 - product;
  return (check === 10 ? 0 : check) === Number(d[10]);
}

const DE_STEUER_ID: Detector = {
  type: 'NATIONAL_ID',
  pattern: new RegExp(
    `${keywordBefore('steuer-?id(?:entifikationsnummer)?|steuer-?idnr|steuerliche identifikationsnummer|identifikationsnummer|idnr|tin')}(\\d{2} ?\\d{3} ?\\d{3} ?\\d{3})(?![\\p{N}])`,
    'giud',
  ),
  accept: (match) => (validSteuerId(match[1] ?? '') ? group1(match) : null),
};

// ---------------------------------------------------------------------------------------------
// Payment cards

function luhn(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes in use: 3 (Amex, Diners, JCB), 4 (Visa), 5 and 2221-2720 (Mastercard), 6. */
function plausibleIssuer(d: string): boolean {
  const prefix = Number(d.slice(0, 4));
  return /^[3-6]/.test(d) || (prefix >= 2221 && prefix <= 2720);
}

/** Groups as printed on cards: 4-4-4-4(-3), a shorter last group, or 4-6-5 / 4-6-4. */
function plausibleGrouping(groups: string[]): boolean {
  if (groups.length === 1) return true;
  const lengths = groups.map((g) => g.length);
  if (lengths.join('-') === '4-6-5' || lengths.join('-') === '4-6-4') return true;
  return lengths.slice(0, -1).every((l) => l === 4) && (lengths[lengths.length - 1] ?? 0) <= 4;
}

const CARD: Detector = {
  type: 'CARD',
  // Printed or typed, a card number starts with four digits before any separator.
  pattern: /(?<![\p{L}\p{N}+])\d{4}(?:[ -]?\d){9,15}(?![\p{L}\p{N}])/gu,
  accept(match) {
    const candidate = match[0];
    if (new Set(candidate.match(/[ -]/g)).size > 1) return null;
    const groups = candidate.split(/[ -]/);
    // A card followed by another number ("4111 1111 1111 1111 12"): try without trailing groups.
    for (let n = groups.length; n >= 1; n--) {
      const kept = groups.slice(0, n);
      const digits = kept.join('');
      if (digits.length < 13) break;
      if (digits.length <= 19 && plausibleGrouping(kept) && plausibleIssuer(digits) && luhn(digits)) {
        return { start: match.index, end: match.index + kept.join(' ').length };
      }
      if (groups.length === 1) break;
    }
    return null;
  },
};

// ---------------------------------------------------------------------------------------------
// IP addresses

function validIpv4(s: string): boolean {
  const octets = s.split('.');
  return octets.length === 4 && octets.every((o) => /^(?:0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255);
}

function validIpv6(s: string): boolean {
  let address = s;
  let embeddedV4 = 0;
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.', lastColon)) {
    if (!validIpv4(address.slice(lastColon + 1))) return false;
    // The IPv4 tail stands for two groups; keep the colon so "::" before it survives.
    address = address.slice(0, lastColon + 1) + '0';
    embeddedV4 = 1;
  }
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return false;
  const total = groups.length + embeddedV4;
  // "::" and "::1" are loopback/unspecified, not anyone's address; "a::b" is more likely code.
  return halves.length === 2 ? total <= 7 && groups.length >= 2 : total === 8;
}

const IPV6: Detector = {
  type: 'IP',
  pattern:
    /(?<![\p{L}\p{N}:.])(?:[0-9a-f]{1,4}|(?=:))(?::[0-9a-f]{0,4}){2,7}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?(?![\p{L}\p{N}:]|\.\p{N})/giu,
  accept: (match) => (validIpv6(match[0]) ? whole(match) : null),
};

const IPV4: Detector = {
  type: 'IP',
  pattern: /(?<![\p{L}\p{N}.:])(?:\d{1,3}\.){3}\d{1,3}(?![\p{L}\p{N}]|\.\p{N})/gu,
  // Four single-digit parts ("1.2.3.4") are section numbers far more often than addresses.
  accept: (match) => (validIpv4(match[0]) && /\d\d/.test(match[0]) ? whole(match) : null),
};

// ---------------------------------------------------------------------------------------------
// Phone numbers

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

const PHONE: Detector = {
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

const DETECTORS: Detector[] = [
  EMAIL,
  IBAN,
  IT_CODICE_FISCALE,
  ES_DNI,
  FR_NIR,
  BE_NATIONAL_NUMBER,
  RO_CNP,
  NL_BSN,
  BG_EGN,
  DE_STEUER_ID,
  CARD,
  IPV6,
  IPV4,
  PHONE,
];
