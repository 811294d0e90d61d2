import assert from 'node:assert/strict';
import { withSlashParts } from '../../core/search/text-search-config.js';

describe('keyword text: slash-joined words', () => {
  it('adds the words of a slash-joined word after the text; paths, addresses and numbers stay as they are', () => {
    assert.equal(withSlashParts('Insert rows/columns here'), 'Insert rows/columns here\nrows columns');
    assert.equal(withSlashParts('antes/después, y/o'), 'antes/después, y/o\nantes después y o');
    assert.equal(withSlashParts('Supprimer cellules/lignes/colonnes.'), 'Supprimer cellules/lignes/colonnes.\ncellules lignes colonnes');
    for (const text of ['see /etc/passwd', 'a/b/1', 'https://example.org/a/b', '~/bin/x', 'no slash at all', '1/2']) {
      assert.equal(withSlashParts(text), text, text);
    }
  });
});
