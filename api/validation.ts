import type { z } from 'zod';
import type { FieldIssue } from '../core/errors.js';

/** Turns zod issues into `{field, message}` pairs; `field` is a dotted path such as `body.name`. */
export function zodIssues(error: z.ZodError, location?: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = [location, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ field: [base, key].filter(Boolean).join('.'), message: 'unknown field' });
      }
    } else {
      issues.push({ field: base || '(root)', message: issue.message });
    }
  }
  return issues;
}
