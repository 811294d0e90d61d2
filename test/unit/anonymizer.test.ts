import assert from 'node:assert/strict';
import { type PiiType, anonymize } from '../../core/anonymization/anonymizer.js';

/** Asserts that every value is replaced by the placeholder of `type`, in surrounding text. */
function assertReplaced(type: PiiType, values: string[], around = (v: string) => `Before ${v} after.`): void {
  for (const value of values) {
    const { text, counts } = anonymize(around(value));
    assert.equal(text, around(`[${type}]`), `${value} was not replaced as ${type}`);
    assert.deepEqual(counts, { [type]: 1 }, `counts for ${value}`);
  }
}

/** Asserts that the text comes back unchanged. */
function assertUnchanged(texts: string[]): void {
  for (const input of texts) {
    const { text, counts } = anonymize(input);
    assert.equal(text, input, `altered: ${input}`);
    assert.deepEqual(counts, {});
  }
}

describe('anonymize', () => {
  it('leaves text without personal data alone', () => {
    assertUnchanged([
      '',
      'Plain text with no personal data at all.',
      'Dates 2024-05-01, 12.05.2023, 01/02/2023, 1 mei 2024 and 01.02.2023 10.30 stay.',
      'Prices € 1.234,56, $1,234.56, 1 234 567 € and 21.000,00 EUR stay.',
      'The years 1990 - 2000 and 2019-2024, the population of 612 345 678 and 10 000 people stay.',
      'Version v2.10.3, release 1.2.3 and section 1.2.3.4 stay.',
      'ISBN 978-3-16-148410-0, ISBN 0-306-40615-2 and 9780306406157 stay.',
      'Order 0123-456-789, Bestellnummer: 020 123 4567 and factuur nr. 06 1234 5678 stay.',
      'Times 09.00-17.00, 12:30:45 and 3:16 stay; std::vector and ::1 stay.',
      'Postcode 1234 AB, KvK 12345678, BTW NL123456789B01, art. 6 lid 1, page 12/345 stay.',
    ]);
  });

  it('replaces e-mail addresses', () => {
    assertReplaced('EMAIL', ['jan.jansen@example.nl', 'first.last+tag@sub.example.co.uk', 'müller@bücher.de', 'x_y-z%1@a-b.org']);
    assert.equal(anonymize('Mail: info@example.com.').text, 'Mail: [EMAIL].');
    assertUnchanged(['user@localhost stays, and so do @handles and a@b.']);
  });

  it('replaces IBANs of any country, grouped or not, when the mod-97 check holds', () => {
    assertReplaced('IBAN', [
      'NL91ABNA0417164300',
      'NL91 ABNA 0417 1643 00',
      'DE89 3704 0044 0532 0130 00',
      'BE68539007547034',
      'FR14 2004 1010 0505 0001 3M02 606',
      'ES9121000418450200051332',
      'IT60 X054 2811 1010 0000 0123 456',
      'BG80BNBG96611020345678',
      'RO49 AAAA 1B31 0075 9384 0000',
      'GB29 NWBK 6016 1331 9268 19',
      'nl91abna0417164300',
    ]);
    // The account is followed by a currency, which must survive.
    assert.equal(anonymize('Rekening NL91 ABNA 0417 1643 00 EUR.').text, 'Rekening [IBAN] EUR.');
    assertUnchanged([
      'Wrong check digits: NL92ABNA0417164300 and DE88370400440532013000.',
      'Wrong length: NL91ABNA04171643001 and unknown country XX91ABNA0417164300.',
    ]);
  });

  it('replaces payment card numbers that pass the Luhn check', () => {
    assertReplaced('CARD', [
      '4111 1111 1111 1111',
      '4111-1111-1111-1111',
      '4111111111111111',
      '5500 0000 0000 0004',
      '2221 0000 0000 0009',
      '3782 822463 10005',
      '3056 930902 5904',
      '6011111111111117',
    ]);
    assert.equal(anonymize('Kaart 4012 8888 8888 1881 12 keer gebruikt.').text, 'Kaart [CARD] 12 keer gebruikt.');
    assertUnchanged([
      'Luhn fails: 4111 1111 1111 1112.',
      'Mixed separators: 4111 1111-1111 1111.',
      'No issuer starts with 1: 1234 5678 9012 3452.',
    ]);
  });

  it('replaces IPv4 and IPv6 addresses', () => {
    assertReplaced('IP', [
      '192.168.1.10',
      '83.160.12.7',
      '2001:db8::ff00:42:8329',
      '2001:0db8:85a3:0000:0000:8a2e:0370:7334',
      'fe80::1ff:fe23:4567:890a',
      '::ffff:192.0.2.128',
    ]);
    assert.equal(anonymize('http://10.0.0.1:8080/status').text, 'http://[IP]:8080/status');
    assertUnchanged([
      'Out of range: 256.1.1.1 and 10.0.0.300.',
      'Too many parts: 1.2.3.4.5; too few: 10.0.0.',
      'Not IPv6: 1:2:3:4:5:6:7:8:9, 12:30:45, 00:1A:2B:3C:4D:5E.',
    ]);
  });

  describe('phone numbers', () => {
    it('replaces international numbers', () => {
      assertReplaced('PHONE', [
        '+31 6 1234 5678',
        '+31612345678',
        '+31 (0)6 1234 5678',
        '+359 88 123 4567',
        '+359 2 987 6543',
        '0049 30 12345678',
        '0049 (0)30 12345678',
        '+33 1 23 45 67 89',
        '+34 612 345 678',
        '+39 333 1234567',
        '+40 722 123 456',
        '+44 (0)20 7946 0958',
        '+1 (555) 123-4567',
        '(+32) 470 12 34 56',
      ]);
    });

    it('replaces national numbers of NL, BE, FR, DE, ES, IT, BG, RO, UK and US', () => {
      const national: [string, string][] = [
        ['nl', 'Bel me op 06-12345678 of 020 123 4567 of (010) 123 45 67.'],
        ['be', 'Bel 0470 12 34 56 of 02 123 45 67 of 03/123.45.67.'],
        ['fr', 'Appelez le 06 12 34 56 78 ou le 01.23.45.67.89.'],
        ['de', 'Ruf an: 030 12345678, 030/1234567, (030) 1234567 oder 0171-1234567.'],
        ['es', 'Llame al 612 34 56 78 o al 91 123 45 67, teléfono 612 345 678.'],
        ['it', 'Chiama il 333 123 4567, lo 06 1234 5678 o il 333 1234567.'],
        ['bg', 'Обадете се на 088 123 4567, 0888 123 456 или 02 987 6543.'],
        ['ro', 'Sunați la 0722 123 456 sau la 021 123 4567.'],
        ['uk', 'Ring 020 7946 0958, 07700 900123 or (0161) 496 0000.'],
        ['us', 'Call (555) 123-4567, 555-123-4567, 555.123.4567 or 1-800-555-0199.'],
      ];
      for (const [country, input] of national) {
        const { text, counts } = anonymize(input);
        assert.doesNotMatch(text, /\d{2}/, `${country}: ${text}`);
        assert.equal(counts.PHONE, (input.match(/\d[\d .\-/()]+\d/g) ?? []).length, `${country}: ${text}`);
      }
    });

    it('needs a keyword for a number written without separators', () => {
      assert.equal(anonymize('Telefoon: 0612345678').text, 'Telefoon: [PHONE]');
      assert.equal(anonymize('тел. 0881234567').text, 'тел. [PHONE]');
      assertUnchanged(['Klantnummer 0612345678 is ongewijzigd.', 'Reference 3331234567.']);
    });

    it('keeps two numbers in a row apart', () => {
      const { text, counts } = anonymize('Tel. 020 123 4567 / 06 12345678, fax 020 123 4568 06 12345679');
      assert.equal(text, 'Tel. [PHONE] / [PHONE], fax [PHONE] [PHONE]');
      assert.deepEqual(counts, { PHONE: 4 });
      assert.equal(anonymize('Bel 06 12345678 2 keer.').text, 'Bel [PHONE] 2 keer.');
    });

    it('does not take dates near a phone keyword for a number', () => {
      assert.equal(
        anonymize('Telefonisch bereikbaar op 12.05.2023 tussen 09.00-17.00 via 020-1234567.').text,
        'Telefonisch bereikbaar op 12.05.2023 tussen 09.00-17.00 via [PHONE].',
      );
    });
  });

  describe('national identifiers', () => {
    it('replaces an NL BSN that passes the 11-proof, only after its keyword', () => {
      assertReplaced('NATIONAL_ID', ['123456782', '1234.56.782', '111 222 333'], (v) => `Mijn BSN: ${v}.`);
      assert.equal(anonymize('Burgerservicenummer (BSN) 123456782').text, 'Burgerservicenummer (BSN) [NATIONAL_ID]');
      assertUnchanged(['BSN: 123456789 fails the 11-proof.', 'Without keyword 123456782 stays.']);
    });

    it('replaces a BE national register number with a valid mod-97 check, before and after 2000', () => {
      assertReplaced('NATIONAL_ID', ['85.07.30-033.28', '85073003328', '01020312345', '01.02.03-123.45'], (v) => `Rijksregisternummer ${v}.`);
      assertUnchanged(['Numéro national 85.07.30-033.29 est faux.', 'Month 13: 85.13.30-033.28.']);
    });

    it('replaces an FR NIR with a valid key, including Corsica', () => {
      assertReplaced('NATIONAL_ID', ['1 85 05 78 006 084 91', '185057800608491', '2 69 05 2A 123 456 88', '1 75 02 2B 042 012 78'], (v) => `N° de sécurité sociale ${v}.`);
      assertUnchanged(['Clé fausse : 185057800608492 et 1 85 05 78 006 084 92.']);
    });

    it('replaces an ES DNI or NIE with the right letter', () => {
      assertReplaced('NATIONAL_ID', ['12345678Z', '12345678-Z', '12.345.678-Z', 'X1234567L', 'Y-1234567X'], (v) => `Mi DNI es ${v}.`);
      assertUnchanged(['Letra incorrecta: 12345678A. Un número 12345678 a Juan.']);
    });

    it('replaces an IT codice fiscale with the right check character', () => {
      assertReplaced('NATIONAL_ID', ['RSSMRA85T10A562S', 'rssmra85t10a562s'], (v) => `Il codice fiscale di Mario Rossi è ${v}.`);
      assertUnchanged(['Carattere di controllo sbagliato: RSSMRA85T10A562T.']);
    });

    it('replaces a BG EGN with a valid date and check digit, only after its keyword', () => {
      assertReplaced('NATIONAL_ID', ['7501020018', '7552010005', '0445031230'], (v) => `ЕГН: ${v}.`);
      assert.equal(anonymize('EGN 7501020018').text, 'EGN [NATIONAL_ID]');
      assertUnchanged(['ЕГН 7501020019 е грешен.', 'ЕГН 7513020018 няма месец 13.', 'Без ключова дума 7501020018.']);
    });

    it('replaces a RO CNP with a valid date, county and check digit', () => {
      assertReplaced('NATIONAL_ID', ['1961231420017', '5000102401236'], (v) => `CNP ${v}, domiciliat în Cluj.`);
      assertUnchanged(['Cifra de control greșită: 1961231420018.', 'Luna 13: 1961331420017.']);
    });

    it('replaces a DE Steuer-ID with a valid structure and check digit, only after its keyword', () => {
      assertReplaced('NATIONAL_ID', ['65929970489', '86 095 742 719'], (v) => `Steuer-ID: ${v}.`);
      assert.equal(anonymize('Steueridentifikationsnummer 65929970489').text, 'Steueridentifikationsnummer [NATIONAL_ID]');
      assertUnchanged(['Steuer-ID: 65929970488 (Prüfziffer falsch), IdNr 12345678903 (keine Ziffer doppelt).']);
    });
  });

  it('replaces several kinds at once and counts them', () => {
    const input =
      'Dhr. Jansen (jan@example.nl, +31 6 1234 5678) betaalt van NL91 ABNA 0417 1643 00 met kaart 4111 1111 1111 1111. ' +
      'Hij logde in vanaf 192.168.1.10 op 12.05.2023. BSN 123456782. Bel ook 020-1234567.';
    const { text, counts } = anonymize(input);
    assert.equal(
      text,
      'Dhr. Jansen ([EMAIL], [PHONE]) betaalt van [IBAN] met kaart [CARD]. ' +
        'Hij logde in vanaf [IP] op 12.05.2023. BSN [NATIONAL_ID]. Bel ook [PHONE].',
    );
    assert.deepEqual(counts, { EMAIL: 1, PHONE: 2, IBAN: 1, CARD: 1, IP: 1, NATIONAL_ID: 1 });
  });

  it('does not read the digits of an IBAN or card as a phone number', () => {
    assert.deepEqual(anonymize('IBAN DE89 3704 0044 0532 0130 00').counts, { IBAN: 1 });
    assert.deepEqual(anonymize('Karte 5500 0000 0000 0004').counts, { CARD: 1 });
  });

  it('is deterministic and idempotent', () => {
    const input = 'Mail jan@example.nl, bel 06-12345678, IBAN NL91ABNA0417164300.';
    const once = anonymize(input);
    assert.deepEqual(anonymize(input), once);
    assert.deepEqual(anonymize(once.text), { text: once.text, counts: {} });
  });

  it('handles a 1 MB input, including inputs built to make regular expressions backtrack', function () {
    // Generous bound: it only has to catch catastrophic backtracking, not measure speed.
    this.timeout(30_000);
    const MB = 1_000_000;
    const prose = 'Bel 06-12345678 of mail jan@example.nl; IBAN NL91ABNA0417164300, op 12.05.2023 voor € 1.234,56. ';
    const big = anonymize(prose.repeat(Math.ceil(MB / prose.length)));
    const repeats = Math.ceil(MB / prose.length);
    assert.deepEqual(big.counts, { EMAIL: repeats, IBAN: repeats, PHONE: repeats });
    for (const hostile of ['1', '1 ', '12-', '1.', 'a', 'a@', 'a.b@c.', ':', 'ab:', '+1 ', '(12) ', 'AB12 CDEF ', '4111 ', 'ЕГН: ', ' ']) {
      const input = hostile.repeat(Math.ceil(MB / hostile.length));
      assert.equal(typeof anonymize(input).text, 'string');
    }
  });
});
