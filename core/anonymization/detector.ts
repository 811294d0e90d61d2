/** What every detector of personal data shares: the placeholder types, its shape, and small helpers. */

export const PII_TYPES = ['EMAIL', 'PHONE', 'IBAN', 'CARD', 'IP', 'NATIONAL_ID'] as const;
export type PiiType = (typeof PII_TYPES)[number];

export interface Span {
  start: number;
  end: number;
}

export interface Detector {
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

export const whole = (match: RegExpExecArray): Span => ({ start: match.index, end: match.index + match[0].length });

/** The span of capture group 1 of a pattern with the `d` flag. */
export function group1(match: RegExpExecArray): Span | null {
  const indices = match.indices?.[1];
  return indices ? { start: indices[0], end: indices[1] } : null;
}

export const digitsOf = (s: string): string => s.replace(/\D/g, '');

/** Remainder of a long decimal string, digit by digit, so no precision is lost. */
export function mod(decimal: string, divisor: number): number {
  let remainder = 0;
  for (const c of decimal) remainder = (remainder * 10 + Number(c)) % divisor;
  return remainder;
}

export function isDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
