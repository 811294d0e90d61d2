/** IBANs, validated by their mod 97-10 check. */
import { type Detector, mod } from '../detector.js';

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

export const IBAN: Detector = {
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
