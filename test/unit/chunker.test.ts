import assert from 'node:assert/strict';
import { DEFAULT_CHUNKING, chunkText, type ChunkingOptions, type TextChunk } from '../../core/ingestion/chunker.js';

/** The normalisation the chunker applies to a chunk's span of the input. */
function normalise(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(/\n(?:[ \t]*\n)+/g, '\n\n');
}

/** Invariants every chunking must satisfy. */
function checkInvariants(text: string, chunks: TextChunk[], options: Partial<ChunkingOptions> = {}): void {
  const { maxChars } = { ...DEFAULT_CHUNKING, ...options };
  chunks.forEach((c, i) => {
    assert.equal(c.index, i);
    assert.ok(c.content.length > 0, `chunk ${i} is empty`);
    assert.equal(c.content, c.content.trim(), `chunk ${i} is not trimmed`);
    assert.ok(c.content.length <= maxChars, `chunk ${i} has ${c.content.length} > ${maxChars} chars`);
    assert.equal(normalise(text.slice(c.start, c.end)), c.content, `chunk ${i} offsets do not match its content`);
    const previous = chunks[i - 1];
    if (previous) {
      assert.ok(c.start > previous.start, `chunk ${i} does not start after chunk ${i - 1}`);
      assert.ok(c.end > previous.end, `chunk ${i} does not end after chunk ${i - 1}`);
    }
  });
}

/** Text of `chars` characters or more, built from `sentences` repeated in order. */
function repeatSentences(sentences: string[], chars: number, separator = ' '): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const s = sentences[i % sentences.length] ?? '';
    parts.push(s);
    length += s.length + separator.length;
  }
  return parts.join(separator);
}

const ENGLISH = [
  'The committee reviewed the proposal in detail and agreed to postpone the final decision.',
  'Several members raised concerns about the budget, in particular the cost of the data centre.',
  'Dr. Smith said that the cooling system could be replaced later.',
  'Nobody objected.',
];

/**
 * Real sentences with the abbreviations of each language. Every sentence is 40-80 characters, so
 * with a target of 80 and no overlap each chunk holds exactly one sentence.
 */
const SENTENCES: Record<string, string[]> = {
  en: [
    'Dr. Smith met Mr. Jones at the station yesterday.',
    'They talked about the weather, e.g. the heavy rain.',
    'The U.S. delegation arrived at 5 p.m. on Friday.',
    'Nobody expected the meeting to take that long!',
    'Was it worth the trip to St. Albans after all?',
  ],
  nl: [
    'Dhr. Jansen woont al jaren in een huis aan de gracht.',
    'Hij werkt o.a. als vertaler voor een groot bureau.',
    'De vergadering is verplaatst naar blz. 12 van de agenda.',
    'Mevr. de Vries was het daar niet mee eens, zei ze.',
  ],
  fr: [
    'M. Dupont habite depuis longtemps dans le centre de Paris.',
    'Il a dit : « Je reviens demain matin. »',
    'Mme Leroy travaille à la mairie, av. Victor Hugo.',
    "C'est une question qu'on pose souvent, n'est-ce pas ?",
  ],
  de: [
    'Dr. Müller wohnt seit vielen Jahren in Berlin-Mitte.',
    'Das Treffen kostet ca. 50 Euro pro Person und Tag.',
    'Er arbeitet z. B. im Bereich der Datenverarbeitung.',
    'Frau Prof. Schmidt hält heute den Vortrag im Hörsaal.',
  ],
  es: [
    '¿Dónde está el Sr. García esta mañana, por favor?',
    'La Dra. López llegó ayer por la tarde desde Madrid.',
    '¡Qué bien que por fin haya terminado la reunión!',
    'El informe tiene más de cien páginas y varios anexos.',
  ],
  it: [
    'Il sig. Rossi abita a Roma da più di vent’anni ormai.',
    'Il dott. Bianchi è arrivato in ritardo alla riunione.',
    'La sede si trova in via Garibaldi, vicino alla stazione.',
    'Perché nessuno ha risposto alla mia ultima domanda?',
  ],
  bg: [
    'Г-н Иванов живее в София от повече от двадесет години.',
    'Той работи в т.нар. министерство на културата досега.',
    'Проф. Петров изнесе лекция в университета вчера.',
    'Офисът се намира на ул. Витоша, близо до центъра!',
  ],
  ro: [
    'Dl. Popescu locuiește în București de foarte mult timp.',
    'Ea lucrează la o firmă de software din Cluj-Napoca.',
    'Biroul se află pe str. Victoriei, lângă piața centrală.',
    'Ați primit deja răspunsul la întrebarea de ieri?',
  ],
};

describe('chunkText', () => {
  it('gives no chunks for empty or whitespace-only input', () => {
    assert.deepEqual(chunkText(''), []);
    assert.deepEqual(chunkText('  \n\r\n\t \n  '), []);
  });

  it('keeps a short text as one trimmed chunk with offsets into the input', () => {
    const text = '\n\n  Hello world. This is short.  \n';
    const chunks = chunkText(text);
    assert.equal(chunks.length, 1);
    assert.deepEqual(chunks[0], { index: 0, content: 'Hello world. This is short.', start: 4, end: 31 });
    checkInvariants(text, chunks);
  });

  it('normalises CRLF and collapses runs of blank lines, keeping offsets into the input', () => {
    const text = 'First line.\r\nSecond line.\r\n\r\n \r\n\t\r\n\r\nNext paragraph.\rLast line.';
    const chunks = chunkText(text);
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]?.content, 'First line.\nSecond line.\n\nNext paragraph.\nLast line.');
    assert.equal(chunks[0]?.start, 0);
    assert.equal(chunks[0]?.end, text.length);
    checkInvariants(text, chunks);
  });

  it('ends chunks at paragraph boundaries when paragraphs fit', () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} starts here. ${ENGLISH.join(' ')}`);
    const text = paragraphs.join('\n\n\n');
    const options = { targetChars: 700, overlapChars: 0, maxChars: 900 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    assert.ok(chunks.length > 1);
    for (const c of chunks) {
      const parts = c.content.split('\n\n');
      assert.ok(parts.every((p) => paragraphs.includes(p)), `chunk ${c.index} splits a paragraph`);
    }
    assert.deepEqual(chunks.flatMap((c) => c.content.split('\n\n')), paragraphs);
  });

  it('splits a long paragraph at sentence ends', () => {
    const text = repeatSentences(ENGLISH, 5000);
    const options = { targetChars: 300, overlapChars: 0, maxChars: 400 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    assert.ok(chunks.length >= 15);
    for (const c of chunks) {
      assert.match(c.content, /^[A-Z]/);
      assert.match(c.content, /[.!?]$/);
      assert.ok(!c.content.endsWith('Dr.'), 'split after an abbreviation');
    }
  });

  for (const [language, sentences] of Object.entries(SENTENCES)) {
    it(`finds the sentences of ${language} text, including abbreviations`, () => {
      const text = sentences.join(' ');
      const options = { targetChars: 80, overlapChars: 0, maxChars: 80 };
      const chunks = chunkText(text, options);
      checkInvariants(text, chunks, options);
      assert.deepEqual(
        chunks.map((c) => c.content),
        sentences,
      );
    });
  }

  it('does not take line breaks inside a paragraph for sentence ends', () => {
    const text =
      'The quarterly report was prepared by the finance\nteam and reviewed by the board before publication.\n' +
      'It shows a modest increase in revenue across all\nregions, with the strongest growth in the north.';
    const options = { targetChars: 110, overlapChars: 0, maxChars: 120 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    assert.equal(chunks.length, 2);
    assert.match(chunks[0]?.content ?? '', /before publication\.$/);
    assert.match(chunks[1]?.content ?? '', /^It shows/);
  });

  it('splits a sentence longer than maxChars at word boundaries', () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    const text = `${words.join(' ')}.`;
    const options = { targetChars: 200, overlapChars: 0, maxChars: 300 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    assert.ok(chunks.length > 5);
    assert.deepEqual(chunks.map((c) => c.content).join(' ').replace(/\.$/, '').split(' '), words);
  });

  it('keeps a sentence between target and max whole', () => {
    const long = `This sentence is long: ${'and it goes on '.repeat(20).trim()}.`;
    const text = `Short intro. ${long} Short outro.`;
    const options = { targetChars: 200, overlapChars: 0, maxChars: 400 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    assert.ok(chunks.some((c) => c.content === long));
  });

  it('cuts an unbroken run hard, without splitting surrogate pairs', () => {
    const text = 'x'.repeat(50_000);
    const chunks = chunkText(text);
    checkInvariants(text, chunks);
    assert.equal(chunks.map((c) => c.content).join(''), text);
    assert.ok(chunks.every((c) => c.content.length === DEFAULT_CHUNKING.targetChars || c.index === chunks.length - 1));

    const emoji = '😀'.repeat(1000);
    const emojiChunks = chunkText(emoji, { targetChars: 99, overlapChars: 0, maxChars: 99 });
    checkInvariants(emoji, emojiChunks, { maxChars: 99 });
    assert.equal(emojiChunks.map((c) => c.content).join(''), emoji);
    for (const c of emojiChunks) {
      assert.doesNotMatch(c.content, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('overlaps consecutive chunks by whole tail sentences of the previous chunk', () => {
    const text = repeatSentences(ENGLISH, 6000);
    const options = { targetChars: 400, overlapChars: 150, maxChars: 600 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1];
      const current = chunks[i];
      assert.ok(previous && current);
      assert.ok(current.start < previous.end, `chunk ${i} has no overlap`);
      const overlap = text.slice(current.start, previous.end);
      assert.ok(overlap.length <= options.overlapChars);
      assert.ok(previous.content.endsWith(overlap) && current.content.startsWith(overlap));
      assert.ok(ENGLISH.some((s) => overlap.startsWith(s)), `overlap of chunk ${i} does not start a sentence`);
      assert.ok(overlap.length < previous.content.length, `chunk ${i} repeats all of chunk ${i - 1}`);
    }
  });

  it('falls back to whole words for the overlap when the last sentence is too long', () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
    const text = `${words.join(' ')}.`;
    const options = { targetChars: 200, overlapChars: 50, maxChars: 250 };
    const chunks = chunkText(text, options);
    checkInvariants(text, chunks, options);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1];
      const current = chunks[i];
      assert.ok(previous && current);
      const overlap = text.slice(current.start, previous.end);
      assert.ok(overlap.length > 0 && overlap.length <= 50);
      assert.equal(text[current.start - 1], ' ', `overlap of chunk ${i} starts mid-word`);
    }
  });

  it('covers every non-whitespace character of the input', () => {
    const text = [repeatSentences(ENGLISH, 3000), 'Short one.', `${'y'.repeat(2500)} tail`, repeatSentences(SENTENCES.bg ?? [], 2500)].join(
      '\r\n\r\n',
    );
    const chunks = chunkText(text);
    checkInvariants(text, chunks);
    const covered = new Uint8Array(text.length);
    for (const c of chunks) covered.fill(1, c.start, c.end);
    for (let i = 0; i < text.length; i++) {
      if (!/\s/.test(text[i] ?? '')) assert.equal(covered[i], 1, `character ${i} is in no chunk`);
    }
  });

  it('is deterministic', () => {
    const text = Object.values(SENTENCES)
      .map((s) => repeatSentences(s, 1500))
      .join('\n\n');
    assert.deepEqual(chunkText(text), chunkText(text));
    checkInvariants(text, chunkText(text));
  });

  it('uses the defaults for options left out', () => {
    const text = repeatSentences(ENGLISH, 20_000);
    assert.deepEqual(chunkText(text, { overlapChars: DEFAULT_CHUNKING.overlapChars }), chunkText(text));
    checkInvariants(text, chunkText(text, { targetChars: 500 }), { maxChars: DEFAULT_CHUNKING.maxChars });
  });

  it('refuses inconsistent options', () => {
    assert.throws(() => chunkText('x', { targetChars: 100, maxChars: 50 }), RangeError);
    assert.throws(() => chunkText('x', { targetChars: 100, overlapChars: 100 }), RangeError);
    assert.throws(() => chunkText('x', { overlapChars: -1 }), RangeError);
    assert.throws(() => chunkText('x', { targetChars: 1.5 }), RangeError);
  });

  it('chunks 10 MB of text in linear time', function () {
    // Generous bound: it only has to catch quadratic behaviour, not measure speed.
    this.timeout(10_000);
    const paragraphs = repeatSentences([...ENGLISH, ...(SENTENCES.de ?? [])], 10_000_000, ' ').replace(/Nobody objected\. /g, 'Nobody objected.\n\n');
    const chunks = chunkText(paragraphs);
    assert.ok(chunks.length > 5000);
    const single = repeatSentences(ENGLISH, 10_000_000);
    assert.ok(chunkText(single).length > 5000);
  });
});
