import assert from 'node:assert/strict';
import { LexicalEmbedder, normaliseText } from '../../core/adapters/lexical.embedder.js';

function cosine(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function bytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** [query, a related passage, an unrelated passage] per language of the spec. */
const RELATED_AND_UNRELATED: Record<string, [string, string, string]> = {
  en: [
    'How do I reset my password?',
    'To reset your password, open the account settings and choose "Reset password".',
    'The quarterly invoice lists every payment made by the customer.',
  ],
  bg: [
    'Как да сменя паролата си?',
    'За да смените паролата, отворете настройките на профила и изберете „Смяна на паролата“.',
    'Тримесечната фактура съдържа всички плащания на клиента.',
  ],
  de: [
    'Wie setze ich mein Passwort zurück?',
    'Um Ihr Passwort zurückzusetzen, öffnen Sie die Kontoeinstellungen.',
    'Die Rechnung enthält alle Zahlungen des Kunden im Quartal.',
  ],
  fr: [
    'Comment réinitialiser mon mot de passe ?',
    'Pour réinitialiser votre mot de passe, ouvrez les paramètres du compte.',
    'La facture trimestrielle liste tous les paiements du client.',
  ],
  nl: [
    'Hoe wijzig ik mijn wachtwoord?',
    'Om uw wachtwoord te wijzigen, opent u de accountinstellingen.',
    'De factuur bevat alle betalingen van de klant.',
  ],
  es: [
    '¿Cómo restablezco mi contraseña?',
    'Para restablecer la contraseña, abra la configuración de la cuenta.',
    'La factura trimestral incluye todos los pagos del cliente.',
  ],
  it: [
    'Come reimposto la password?',
    "Per reimpostare la password, apri le impostazioni dell'account.",
    'La fattura trimestrale elenca tutti i pagamenti del cliente.',
  ],
  ro: [
    'Cum îmi resetez parola?',
    'Pentru a reseta parola, deschideți setările contului.',
    'Factura trimestrială conține toate plățile clientului.',
  ],
};

describe('LexicalEmbedder', () => {
  const embedder = new LexicalEmbedder();
  const embed = (text: string, dimensions = 1024): Float32Array => embedder.embedText(text, dimensions);

  it("is identified as 'lexical-v1'", () => {
    assert.equal(embedder.id, 'lexical-v1');
  });

  it('returns exactly the requested number of dimensions, L2-normalised', async () => {
    for (const dimensions of [1, 7, 384, 1024, 4096]) {
      const [vector] = await embedder.embed(['Knowledge bases keep their declared dimensions.'], { dimensions, kind: 'document' });
      assert.ok(vector);
      assert.equal(vector.length, dimensions);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-6, `norm at ${dimensions}: ${norm(vector)}`);
    }
  });

  it('rejects dimensions outside 1..4096', async () => {
    await assert.rejects(embedder.embed(['x'], { dimensions: 0, kind: 'query' }), RangeError);
    await assert.rejects(embedder.embed(['x'], { dimensions: 4097, kind: 'query' }), RangeError);
    assert.throws(() => embed('x', 2.5), RangeError);
  });

  it('gives bitwise the same vector for the same text, whatever was embedded before and by which instance', () => {
    const text = 'Filters are applied inside the index scan, never after a top-k cut.';
    const first = embed(text);
    embed('something else entirely, to dirty the reused feature table');
    embed('x'.repeat(3) + ' ' + 'long text '.repeat(5000)); // grows the table
    const again = embed(text);
    const fresh = new LexicalEmbedder().embedText(text, 1024);
    assert.ok(bytes(first).equals(bytes(again)));
    assert.ok(bytes(first).equals(bytes(fresh)));
  });

  it('pins the vector format (a change here must come with a new id)', () => {
    assert.deepEqual(Array.from(embed('Hello, world', 8)), [
      -0.13488903641700745, 0.40466710925102234, 0.13488903641700745, -0.40466710925102234, 0.5395561456680298,
      0.13488903641700745, 0.5395561456680298, 0.18884465098381042,
    ]);
  });

  it('embeds a batch in order, and queries the same way as documents', async () => {
    const texts = ['alpha beta', 'gamma delta', 'alpha beta'];
    const vectors = await embedder.embed(texts, { dimensions: 64, kind: 'document' });
    assert.equal(vectors.length, 3);
    vectors.forEach((vector, i) => assert.ok(bytes(vector).equals(bytes(embed(texts[i] as string, 64)))));
    const [query] = await embedder.embed(['alpha beta'], { dimensions: 64, kind: 'query' });
    assert.ok(query && bytes(query).equals(bytes(vectors[0] as Float32Array)));
    assert.deepEqual(await embedder.embed([], { dimensions: 64, kind: 'query' }), []);
  });

  for (const [language, [query, related, unrelated]] of Object.entries(RELATED_AND_UNRELATED)) {
    it(`ranks a related passage above an unrelated one (${language})`, () => {
      const q = embed(query);
      const toRelated = cosine(q, embed(related));
      const toUnrelated = cosine(q, embed(unrelated));
      assert.ok(toRelated > toUnrelated + 0.1, `related ${toRelated} vs unrelated ${toUnrelated}`);
    });
  }

  it('matches inflected forms through character n-grams', () => {
    assert.ok(cosine(embed('книга'), embed('книгата')) > cosine(embed('книга'), embed('автомобил')) + 0.2);
    assert.ok(cosine(embed('searching documents'), embed('search document')) > 0.3);
  });

  it('folds case, diacritics, compatibility forms and ß', () => {
    const same = (a: string, b: string): void =>
      assert.ok(bytes(embed(a)).equals(bytes(embed(b))), `${a} should embed like ${b}`);
    same('café', 'cafe');
    same('CAFÉ', 'cafe');
    same('Café', 'cafe\u0301'); // precomposed and combining accent
    same('ｃａｆｅ', 'cafe'); // full-width
    same('Straße', 'strasse');
    same('Ștefan și Ţară', 'stefan si tara'); // Romanian comma-below and cedilla forms
    same('ПАРОЛА', 'парола');
    same('Ёлка', 'елка');
    assert.ok(!bytes(embed('cafe')).equals(bytes(embed('cafes'))));
    assert.equal(normaliseText('Ǆemal İstanbul'), 'dzemal istanbul');
  });

  it('weighs word order through bigrams', () => {
    const similarity = cosine(embed('new york'), embed('york new'));
    assert.ok(similarity < 0.99 && similarity > 0.5, String(similarity));
  });

  it('gives texts without letters or digits one fixed unit vector', () => {
    const empty = embed('');
    assert.equal(norm(empty), 1);
    assert.equal(empty.filter((x) => x !== 0).length, 1);
    for (const text of ['   ', '\n\t', '!?…', '—']) assert.ok(bytes(embed(text)).equals(bytes(empty)), JSON.stringify(text));
    assert.ok(Math.abs(cosine(empty, embed('a real sentence'))) < 0.2);
  });

  it('treats words of other scripts, and letters outside the BMP, as words', () => {
    assert.ok(cosine(embed('東京 タワー'), embed('東京')) > 0.3);
    assert.ok(cosine(embed('𝐀𝐁𝐂 x'), embed('abc x')) > 0.99); // NFKC maps mathematical bold to ASCII
    assert.ok(cosine(embed('𠀀𠀁 word'), embed('word')) < 0.9);
  });
});
