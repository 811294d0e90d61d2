import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingAnchor(m[1]!)));
}

describe('links between README.md and docs/', () => {
  it('computes anchors as GitHub does', () => {
    assert.equal(headingAnchor('5. Run on PostgreSQL'), '5-run-on-postgresql');
    assert.equal(headingAnchor('Documents, jobs and search'), 'documents-jobs-and-search');
    assert.equal(headingAnchor('Indexing: anonymization, chunking'), 'indexing-anonymization-chunking');
  });

  for (const page of PAGES) {
    it(`${page}: every relative link reaches a file, and every anchor a heading`, () => {
      const markdown = readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // http(s), mailto
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file ? path.resolve(path.dirname(path.join(ROOT, page)), file) : path.join(ROOT, page);
        // A reader of a clone or of the repository's web page has nothing outside it.
        assert.ok(resolved.startsWith(`${ROOT}${path.sep}`), `${page} links to ${target}, outside the repository`);
        assert.ok(existsSync(resolved), `${page} links to ${target}, which does not exist`);
        if (anchor) assert.ok(anchorsOf(readFileSync(resolved, 'utf8')).has(anchor), `${page} links to ${target}: no such heading`);
      }
    });
  }
});
