import assert from 'node:assert/strict';
import { dictionaryForms } from '../../core/translation/dictionary-forms.js';

describe('dictionaryForms (the forms a word is looked up as in a bilingual dictionary)', () => {
  it('tries the word, then without each ending of its language, with what replaces it', () => {
    assert.deepEqual(dictionaryForms('présentations', 'fr'), ['présentations', 'présentation']);
    assert.deepEqual(dictionaryForms('canaux', 'fr'), ['canaux', 'canau', 'canal']);
    assert.deepEqual(dictionaryForms('presentaciones', 'es'), ['presentaciones', 'presentacione', 'presentacion', 'presentación']);
    assert.deepEqual(dictionaryForms('presentazioni', 'it'), ['presentazioni', 'presentaziono', 'presentazione']);
    assert.deepEqual(dictionaryForms('diapositive', 'it'), ['diapositive', 'diapositiva']);
    assert.deepEqual(dictionaryForms('libraries', 'en'), ['libraries', 'librarie', 'librari', 'library']);
  });

  it('also tries a stem ending in a doubled consonant with one, and keeps stems of three letters or more', () => {
    assert.deepEqual(dictionaryForms('tabellen', 'nl'), ['tabellen', 'tabell', 'tabel', 'tabelle']);
    assert.deepEqual(dictionaryForms('ein', 'de'), ['ein']);
    assert.deepEqual(dictionaryForms('files', 'en'), ['files', 'file', 'fil']);
  });
});
