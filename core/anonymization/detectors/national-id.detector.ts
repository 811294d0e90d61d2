/** National identifiers of the supported countries, each validated by its check digit or letter. */
import { type Detector, digitsOf, group1, isDate, mod, whole } from '../detector.js';

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

export const NL_BSN: Detector = {
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

export const BE_NATIONAL_NUMBER: Detector = {
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

export const FR_NIR: Detector = {
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

export const ES_DNI: Detector = {
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

export const IT_CODICE_FISCALE: Detector = {
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

export const BG_EGN: Detector = {
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

export const RO_CNP: Detector = {
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

export const DE_STEUER_ID: Detector = {
  type: 'NATIONAL_ID',
  pattern: new RegExp(
    `${keywordBefore('steuer-?id(?:entifikationsnummer)?|steuer-?idnr|steuerliche identifikationsnummer|identifikationsnummer|idnr|tin')}(\\d{2} ?\\d{3} ?\\d{3} ?\\d{3})(?![\\p{N}])`,
    'giud',
  ),
  accept: (match) => (validSteuerId(match[1] ?? '') ? group1(match) : null),
};
