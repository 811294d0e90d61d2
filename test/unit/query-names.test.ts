import assert from 'node:assert/strict';
import { namesIn, withNamesAsSpelled } from '../../core/translation/query-translation.service.js';

describe('names in a translated query', () => {
  it('takes words with inner capitals, words in capitals, and capitalised words after the first', () => {
    assert.deepEqual(namesIn('Calc service RenameSheet', 'en'), ['Calc', 'RenameSheet']);
    assert.deepEqual(namesIn('exporter en PDF avec LibreOffice', 'fr'), ['PDF', 'LibreOffice']);
    assert.deepEqual(namesIn('SOMME.CARRES, fonction', 'fr'), ['SOMME.CARRES']);
    assert.deepEqual(namesIn('Écran, Agrandisseurs', 'fr'), ['Écran', 'Agrandisseurs']);
  });

  it('leaves a capitalised first word alone, and German capitalised nouns', () => {
    assert.deepEqual(namesIn('Fichier, menu', 'fr'), []);
    assert.deepEqual(namesIn('platform service extensions', 'en'), []);
    assert.deepEqual(namesIn('Dateien und Verzeichnisse kopieren', 'de'), []);
    // In German only what no noun looks like: capitals inside a word, or all of it.
    assert.deepEqual(namesIn('Dienst FileSystem und PDF Dateien', 'de'), ['FileSystem', 'PDF']);
    assert.deepEqual(namesIn('A b', 'en'), [], 'one letter is no name');
  });

  it('adds each name to the dictionary word it is a form of, else as a word of its own', () => {
    const words = [
      { word: 'Platform', translations: ['Programa', 'Plataforma'] },
      { word: 'service', translations: ['servicio'] },
      { word: 'Extension', translations: ['Prórroga', 'Extensión'] },
    ];
    assert.deepEqual(withNamesAsSpelled(namesIn('Platform service Extensions', 'en'), words), [
      { word: 'Platform', translations: ['Programa', 'Plataforma', 'Platform'] },
      { word: 'service', translations: ['servicio'] },
      { word: 'Extension', translations: ['Prórroga', 'Extensión', 'Extensions'] },
    ]);
    // An unknown word is already its own translation; a name no lemma begins is added.
    const unknown = [{ word: 'RenameSheet', translations: ['RenameSheet'] }];
    assert.deepEqual(withNamesAsSpelled(namesIn('Calc RenameSheet', 'en'), unknown), [
      { word: 'RenameSheet', translations: ['RenameSheet'] },
      { word: 'Calc', translations: ['Calc'] },
    ]);
    // A short word beginning a name is not its lemma.
    const short = [
      { word: 'de', translations: ['of'] },
      { word: 'Delete', translations: ['Delete'] },
    ];
    assert.deepEqual(withNamesAsSpelled(namesIn('de DeleteRows', 'fr'), short), [...short, { word: 'DeleteRows', translations: ['DeleteRows'] }]);
    // The words given are not changed.
    assert.deepEqual(words[0]!.translations, ['Programa', 'Plataforma']);
  });
});
