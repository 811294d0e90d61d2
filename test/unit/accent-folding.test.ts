import assert from 'node:assert/strict';
import { foldAccents, foldedWords, withFoldedWords } from '../../core/search/accent-folding.js';

describe('accent folding', () => {
  it('removes the diacritics of Latin letters and spells out œ and æ', () => {
    assert.equal(foldAccents('Información'), 'Informacion');
    assert.equal(foldAccents('élément, fenêtre, Ça'), 'element, fenetre, Ca');
    assert.equal(foldAccents('perché più città'), 'perche piu citta');
    assert.equal(foldAccents('één geïnstalleerd'), 'een geinstalleerd');
    assert.equal(foldAccents('fișier țară în'), 'fisier tara in');
    assert.equal(foldAccents('cœur Œuvre ex æquo'), 'coeur OEuvre ex aequo');
    assert.equal(foldAccents('Ñandú'), 'Nandu');
  });

  it('keeps letters whose marks belong to them in other scripts, and ß', () => {
    assert.equal(foldAccents('й ё Йордан'), 'й ё Йордан');
    assert.equal(foldAccents('Größe'), 'Große');
  });

  it('returns ASCII text as it is', () => {
    const text = 'Copy files and directories (cp -r).';
    assert.equal(foldAccents(text), text);
    assert.deepEqual(foldedWords(text), { words: [], folded: [] });
  });

  it('lists the words folding changes with their folded spellings, every occurrence in order', () => {
    assert.deepEqual(foldedWords('La información, ¿página? día–día «élément» file'), {
      words: ['información', 'página', 'día', 'día', 'élément'],
      folded: ['informacion', 'pagina', 'dia', 'dia', 'element'],
    });
    assert.deepEqual(foldedWords('Учителите в новите училища'), { words: [], folded: [] });
  });

  it("appends a query's folded spellings, and names those the query did not type itself", () => {
    const { text, added } = withFoldedWords('Información informacion Página');
    assert.equal(text, 'Información informacion Página\nInformacion Pagina');
    assert.deepEqual([...added], ['pagina']);
    assert.deepEqual(withFoldedWords('copy files'), { text: 'copy files', added: new Set() });
  });
});
