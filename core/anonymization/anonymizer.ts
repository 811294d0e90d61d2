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

import type { Detector, PiiType } from './detector.js';
import { CARD } from './detectors/card.detector.js';
import { EMAIL } from './detectors/email.detector.js';
import { IBAN } from './detectors/iban.detector.js';
import { IPV4, IPV6 } from './detectors/ip.detector.js';
import { BE_NATIONAL_NUMBER, BG_EGN, DE_STEUER_ID, ES_DNI, FR_NIR, IT_CODICE_FISCALE, NL_BSN, RO_CNP } from './detectors/national-id.detector.js';
import { PHONE } from './detectors/phone.detector.js';

export { PII_TYPES, type PiiType } from './detector.js';

export interface AnonymizationResult {
  text: string;
  /** How many values of each type were replaced; types that did not occur are absent. */
  counts: Partial<Record<PiiType, number>>;
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

/** The detectors in the order they run: most specific first. */
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
