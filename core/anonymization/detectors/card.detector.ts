/** Payment card numbers: Luhn, a plausible issuer and the grouping printed on cards. */
import { type Detector } from '../detector.js';

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

export const CARD: Detector = {
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
