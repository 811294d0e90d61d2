import assert from 'node:assert/strict';
import { parseTranslationFile } from '../../bench/debian-packages.js';

describe('package descriptions collection (bench/debian-packages.ts)', () => {
  it('reads each stanza as a document: the package its id and title, the short description its query, the long one its text', () => {
    const file = [
      'Package: 2048-qt',
      'Description-md5: 0f25c2ca95ceff4500fde9f651d74f2e',
      'Description-es: juego de rompecabezas basado en matemáticas',
      ' 2048 es un juego en el que tiene que deslizar las fichas',
      ' en una cuadrícula.',
      ' .',
      ' Tiene que combinar los números similares.',
      '',
      'Package: empty',
      'Description-md5: 00000000000000000000000000000000',
      'Description-es: sin descripción larga',
      '',
      'Package: 2048-qt',
      'Description-md5: 11111111111111111111111111111111',
      'Description-es: otra versión',
      ' repetida',
      '',
    ].join('\n');
    assert.deepEqual(parseTranslationFile(file), [
      {
        id: '2048-qt',
        title: '2048-qt',
        description: 'juego de rompecabezas basado en matemáticas',
        text: '2048 es un juego en el que tiene que deslizar las fichas\nen una cuadrícula.\n\nTiene que combinar los números similares.',
      },
    ]);
  });
});
