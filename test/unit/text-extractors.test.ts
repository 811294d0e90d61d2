import assert from 'node:assert/strict';
import { decodeText, sniffFileType, textOfFile, uploadFileType } from '../../core/documents/file-types.js';
import { decodeCharacterReferences, htmlToText } from '../../core/documents/html-extractor.js';
import { markdownToText } from '../../core/documents/markdown-extractor.js';

describe('Markdown to text', () => {
  it('keeps the words of headings, paragraphs, lists, quotes and tables, and drops their markup', () => {
    const markdown = [
      '---',
      'title: Handbook',
      '---',
      '# Leave policy #',
      '',
      'Staff get **25 days** of _paid_ leave a year,',
      'as agreed in the [collective agreement](https://example.com/cao "CAO") and <https://example.com/hr>.',
      'See ![the chart](chart.png), [the FAQ][faq] and [faq]; keep snake_case_names, \\*stars\\* &amp; ~~old~~ &copy;.',
      '',
      'Setext heading',
      '--------------',
      '> Quoted **text**',
      '> continues.',
      '',
      '- First item',
      '- Second item with `inline_code()`',
      '  continued',
      '1. Numbered',
      '- [x] done',
      '',
      '| Name | Days |',
      '|------|-----:|',
      '| Ann  | 25   |',
      '| Bob \\| Jr | 20 |',
      '',
      '```ts',
      'const days = 25; // *not* emphasis',
      '',
      'return days;',
      '```',
      '<!-- a comment',
      'over two lines -->',
      '<div align="center">Centred <b>HTML</b></div>',
      '',
      '***',
      '[faq]: https://example.com/faq',
      'Last line.',
    ].join('\n');
    assert.equal(
      markdownToText(markdown),
      [
        'Leave policy',
        'Staff get 25 days of paid leave a year, as agreed in the collective agreement and https://example.com/hr. See the chart, the FAQ and faq; keep snake_case_names, *stars* & old ©.',
        'Setext heading',
        'Quoted text continues.',
        'First item\nSecond item with inline_code() continued\nNumbered\ndone',
        'Name\tDays\nAnn\t25\nBob | Jr\t20',
        'const days = 25; // *not* emphasis\n\nreturn days;',
        'Centred HTML',
        'Last line.',
      ].join('\n\n'),
    );
  });

  it('leaves text without markup as it is, but for joining wrapped lines', () => {
    assert.equal(markdownToText('Plain text, 3 < 4 and a_b_c.\nSecond line.\r\n\r\nNext paragraph.'), 'Plain text, 3 < 4 and a_b_c. Second line.\n\nNext paragraph.');
  });
});

describe('HTML to text', () => {
  it('keeps the visible text with its blocks as paragraphs and lines, and nothing else', () => {
    const html = `<!DOCTYPE html>
<html><head><title>Leave policy</title><style>p { color: red }</style><script>var x = "<p>no</p>";</script></head>
<body>
<nav hidden><a href="/">Home</a></nav>
<h1>Leave&nbsp;policy</h1>
<p>Staff get <b>25 days</b> of paid
   leave a year &amp; 3 &quot;personal&quot; days &#8212; see &#x201C;HR&#x201D; &#150; &unknown; AT&T.</p>
<!-- a comment <p>hidden</p> -->
<ul><li>One</li><li>Two <a href="x?a=1&b=2" title="a > b">link</a></li></ul>
<table><tr><th>Name</th><th>Days</th></tr><tr><td>Ann</td><td>25</td></tr></table>
<pre>
  code line 1
    code line 2
</pre>
<p>a < b and c<br>d</p>
<div><div><p>nested</p></div></div><template><p>template</p></template><noscript>enable scripts</noscript><select><option>choice</option></select>
</body></html>`;
    assert.equal(
      htmlToText(html),
      [
        'Leave policy',
        'Staff get 25 days of paid leave a year & 3 "personal" days — see “HR” – &unknown; AT&T.',
        'One\nTwo link',
        'Name\tDays\nAnn\t25',
        '  code line 1\n    code line 2',
        'a < b and c\nd',
        'nested',
      ].join('\n\n'),
    );
  });

  it('decodes character references as browsers do', () => {
    assert.equal(decodeCharacterReferences('&lt;&gt;&amp;&apos;&eacute;&Omega;&euro;&#0;&#xD800;&#x110000;&#128;&#65&#x42;&nosuch;&amp'), "<>&'éΩ€\uFFFD\uFFFD\uFFFD€AB&nosuch;&amp");
  });
});

describe('upload file types', () => {
  const bytes = (s: string) => Buffer.from(s, 'latin1');

  it('takes a declared type at its word, and reads an untyped file by its name, then its content', () => {
    assert.equal(uploadFileType('text/markdown', 'a.txt', bytes('x')), 'text/markdown');
    assert.equal(uploadFileType('text/x-markdown', null, bytes('x')), 'text/markdown');
    assert.equal(uploadFileType('image/png', 'a.txt', bytes('x')), undefined);
    assert.equal(uploadFileType('text/csv', 'a.csv', bytes('a,b')), undefined);
    assert.equal(uploadFileType('application/octet-stream', 'A.HTM', bytes('x')), 'text/html');
    assert.equal(uploadFileType('', 'notes.markdown', bytes('x')), 'text/markdown');
    assert.equal(uploadFileType('application/octet-stream', 'scan.bin', bytes('%PDF-1.7\n')), 'application/pdf');
    assert.equal(uploadFileType('', null, bytes('plain')), 'text/plain');
  });

  it('sniffs PDF, HTML, text and binary content', () => {
    assert.equal(sniffFileType(bytes('%PDF-1.4 …')), 'application/pdf');
    assert.equal(sniffFileType(Buffer.from('\ufeff  \n<!DOCTYPE html><p>x')), 'text/html');
    assert.equal(sniffFileType(bytes('<p>x</p>')), 'text/html');
    assert.equal(sniffFileType(bytes('<pre>x</pre>')), 'text/plain');
    assert.equal(sniffFileType(Buffer.from('Grüße\r\n\tund mehr\x1b[0m')), 'text/plain');
    assert.equal(sniffFileType(Buffer.from([0xff, 0xfe, 0x41, 0x00])), 'text/plain');
    assert.equal(sniffFileType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), undefined);
    assert.equal(sniffFileType(Buffer.from('text with a NUL \0 byte')), undefined);
  });

  it('decodes UTF-16, UTF-8, an HTML file by its declared charset, and else Windows-1252', () => {
    assert.equal(decodeText(Buffer.from([0xff, 0xfe, 0x41, 0x00, 0xe9, 0x00])), 'Aé');
    assert.equal(decodeText(Buffer.from('\ufeffcafé')), 'café');
    assert.equal(decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x80, 0x93, 0x81])), 'café€“\x81');
    const latin2 = Buffer.concat([bytes('<meta charset="iso-8859-2"><p>'), Buffer.from([0xb3, 0xf3, 0xbf, 0xea, 0xe8])]);
    assert.equal(textOfFile('text/html', latin2), 'łóżęč');
  });
});
