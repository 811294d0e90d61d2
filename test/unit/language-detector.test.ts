import assert from 'node:assert/strict';
import { EldLanguageDetector } from '../../core/adapters/eld.language-detector.js';
import type { Language } from '../../core/translation/translation.schema.js';

/**
 * Cases the detector gets right with a clear lead (see bench/language-detection.bench.ts for the
 * full comparison and its misses): search queries of 2-8 words, and sentences.
 */
const QUERIES: Record<Language, string[]> = {
  en: [
    'where is my invoice',
    'what is the weather tomorrow',
    'how long does shipping take',
    'why was my payment declined',
    'delete my account permanently',
    'refund policy for damaged items',
  ],
  nl: [
    'wachtwoord opnieuw instellen',
    'hoe exporteer ik mijn gegevens',
    'wat voor weer wordt het morgen',
    'ik ben mijn telefoon kwijt',
    'waarom is mijn betaling geweigerd',
    'waar is mijn factuur',
  ],
  fr: [
    'mettre à jour mes coordonnées bancaires',
    "j'ai perdu mon téléphone",
    'pourquoi mon paiement a été refusé',
    'réserver une salle de réunion',
    'où est ma facture',
    "l'imprimante ne fonctionne pas",
  ],
  de: [
    'Passwort zurücksetzen',
    'wo ist meine Rechnung',
    'der Drucker funktioniert nicht',
    'warum wurde meine Zahlung abgelehnt',
    'Parkplätze in der Nähe des Büros',
    'mein Konto endgültig löschen',
  ],
  es: [
    'cómo cocer arroz blanco',
    'qué tiempo hará mañana',
    'por qué rechazaron mi pago',
    'reembolso por un producto dañado',
    'cómo exportar mis datos',
    'cuánto cuesta el plan premium',
  ],
  it: [
    'reimpostare la password',
    'come cuocere il riso',
    "cambiare l'indirizzo di consegna",
    'quanto tempo ci vuole per la spedizione',
    'che tempo farà domani',
    'la stampante non funziona',
  ],
  bg: [
    'къде е моята фактура',
    'принтерът не работи',
    'колко струва премиум планът',
    'какво ще е времето утре',
    'защо плащането ми беше отказано',
    'възстановяване на сума за повреден продукт',
  ],
  ro: [
    'resetarea parolei',
    'cum va fi vremea mâine',
    'cât durează livrarea',
    'imprimanta nu funcționează',
    'ștergerea definitivă a contului',
    'rezervarea unei săli de ședințe',
  ],
};

const SENTENCES: Record<Language, string[]> = {
  en: [
    'To reset your password, open the login page and follow the link that we send to your email address.',
    'The quarterly report shows that revenue grew by twelve percent while costs stayed roughly the same.',
    'The new version of the application loads faster and uses less memory on older phones.',
    'If the package arrives damaged, take a photo and contact us so we can send a replacement.',
    'Please make sure that all documents are uploaded before the deadline at the end of the month.',
  ],
  nl: [
    'Ons supportteam beantwoordt elke aanvraag binnen één werkdag, ook op feestdagen.',
    'Uit het kwartaalverslag blijkt dat de omzet met twaalf procent is gestegen terwijl de kosten gelijk bleven.',
    'Zorg ervoor dat alle documenten vóór het einde van de maand zijn geüpload.',
    'Het museum is op maandag gesloten, maar voor groepen zijn rondleidingen op aanvraag mogelijk.',
    'De nieuwe versie van de app laadt sneller en gebruikt minder geheugen op oudere telefoons.',
  ],
  fr: [
    "Notre équipe d'assistance répond à chaque demande sous un jour ouvré, y compris les jours fériés.",
    'Pour réinitialiser votre mot de passe, ouvrez la page de connexion et suivez le lien envoyé à votre adresse e-mail.',
    'Le musée est fermé le lundi, mais des visites guidées sont proposées aux groupes sur demande.',
    "La nouvelle version de l'application se charge plus vite et consomme moins de mémoire sur les anciens téléphones.",
    'Veuillez vérifier que tous les documents sont téléversés avant la fin du mois.',
  ],
  de: [
    'Unser Support-Team beantwortet jede Anfrage innerhalb eines Werktags, auch an Feiertagen.',
    'Der Quartalsbericht zeigt, dass der Umsatz um zwölf Prozent gestiegen ist, während die Kosten etwa gleich geblieben sind.',
    'Die neue Version der App lädt schneller und braucht auf älteren Handys weniger Speicher.',
    'Das Museum ist montags geschlossen, aber für Gruppen gibt es Führungen auf Anfrage.',
    'Bitte stellen Sie sicher, dass alle Unterlagen bis zum Monatsende hochgeladen sind.',
  ],
  es: [
    'La nueva versión de la aplicación carga más rápido y usa menos memoria en los teléfonos antiguos.',
    'El museo cierra los lunes, pero hay visitas guiadas para grupos bajo petición.',
    'Cada base de conocimiento puede contener miles de documentos, y cada documento se divide en fragmentos más pequeños.',
    'Si el paquete llega dañado, haz una foto y ponte en contacto con nosotros para que enviemos un reemplazo.',
    'Para restablecer tu contraseña, abre la página de inicio de sesión y sigue el enlace que enviamos a tu correo electrónico.',
  ],
  it: [
    'Assicurati che tutti i documenti siano caricati prima della fine del mese.',
    'Sono previste forti piogge nel nord del paese, quindi gli automobilisti devono prestare particolare attenzione.',
    'Il museo è chiuso il lunedì, ma per i gruppi sono disponibili visite guidate su richiesta.',
    'Per reimpostare la password, apri la pagina di accesso e segui il link che inviamo al tuo indirizzo email.',
    'Il nostro team di assistenza risponde a ogni richiesta entro un giorno lavorativo, anche nei giorni festivi.',
  ],
  bg: [
    'В северната част на страната се очакват силни валежи, затова шофьорите трябва да бъдат особено внимателни.',
    'Служителите могат да работят от вкъщи два дни седмично, след като договорят график с ръководителя си.',
    'Новата версия на приложението се зарежда по-бързо и използва по-малко памет на по-старите телефони.',
    'Всяка база от знания може да съдържа хиляди документи, а всеки документ се разделя на по-малки части.',
    'За да смените паролата си, отворете страницата за вход и последвайте връзката, която изпращаме на имейла ви.',
  ],
  ro: [
    'Echipa noastră de asistență răspunde la fiecare solicitare în cel mult o zi lucrătoare, inclusiv în zilele de sărbătoare.',
    'Raportul trimestrial arată că veniturile au crescut cu doisprezece la sută, în timp ce costurile au rămas aproape aceleași.',
    'Noua versiune a aplicației se încarcă mai repede și folosește mai puțină memorie pe telefoanele mai vechi.',
    'Angajații pot lucra de acasă două zile pe săptămână, după ce stabilesc un program cu managerul lor.',
    'Muzeul este închis lunea, dar pentru grupuri sunt disponibile vizite ghidate la cerere.',
  ],
};

/** Text in none of the 8 languages, or with nothing to judge. */
const NONE_OF_THE_EIGHT: Record<string, string[]> = {
  Japanese: ['パスワードをリセットする方法', '明日の天気はどうですか'],
  Chinese: ['如何重置密码', '我的发票在哪里'],
  Russian: ['как сбросить пароль', 'где мой счёт', 'Наша служба поддержки отвечает на каждый запрос в течение одного рабочего дня.'],
  Ukrainian: ['як скинути пароль', 'скасувати підписку'],
  Polish: ['jak zresetować hasło', 'gdzie jest moja faktura'],
  Turkish: ['şifremi nasıl sıfırlarım', 'Destek ekibimiz her talebe bir iş günü içinde yanıt verir.'],
  Portuguese: ['como redefinir a minha senha', 'onde está a minha fatura'],
  Greek: ['επαναφορά κωδικού πρόσβασης'],
  'digits and codes': ['12345', '2024-11-21', '+32 2 555 01 23', 'A1-B2-C3'],
  'emoji and punctuation': ['😀😀👍', '🔥🚀', '???', '...'],
  'empty and blank': ['', '   ', '\n\t'],
  'addresses': ['https://example.com/help', 'support@example.com'],
};

describe('EldLanguageDetector', () => {
  let detector: EldLanguageDetector;

  before(async () => {
    detector = await EldLanguageDetector.load();
  });

  for (const [language, queries] of Object.entries(QUERIES)) {
    it(`detects short ${language} queries`, () => {
      for (const query of queries) {
        const result = detector.detect(query);
        assert.equal(result.language, language, query);
        assert.ok(result.confidence > 0 && result.confidence <= 1, `${query}: ${result.confidence}`);
      }
    });
  }

  for (const [language, sentences] of Object.entries(SENTENCES)) {
    it(`detects ${language} sentences with confidence of at least 0.5`, () => {
      for (const sentence of sentences) {
        const result = detector.detect(sentence);
        assert.equal(result.language, language, sentence);
        assert.ok(result.confidence >= 0.5 && result.confidence <= 1, `${sentence}: ${result.confidence}`);
      }
    });
  }

  for (const [kind, texts] of Object.entries(NONE_OF_THE_EIGHT)) {
    it(`answers null with confidence 0 for ${kind}`, () => {
      for (const text of texts) assert.deepEqual(detector.detect(text), { language: null, confidence: 0 }, text);
    });
  }

  it('never answers Bulgarian for text with letters Bulgarian does not use', () => {
    // eld itself ranks Bulgarian first for 'платёж' and a hair behind Russian for the other.
    for (const text of ['платёж', 'вы платите картой']) {
      assert.deepEqual(detector.detect(text), { language: null, confidence: 0 }, text);
    }
  });

  it('answers a supported language a hair behind an unsupported one, with confidence 0', () => {
    // eld puts Serbian and Catalan ahead by less than 0.01 here.
    assert.deepEqual(detector.detect('билети за влак до Пловдив'), { language: 'bg', confidence: 0 });
    assert.deepEqual(detector.detect('billetes de tren a Madrid'), { language: 'es', confidence: 0 });
  });

  it('answers null for a lone word that gives too little evidence', () => {
    for (const word of ['ok', 'hotel', 'factura']) {
      assert.deepEqual(detector.detect(word), { language: null, confidence: 0 }, word);
    }
  });

  it('reads past codes and links to the words around them', () => {
    assert.equal(detector.detect('Fehler 0x80070005 beim Update, siehe https://example.com/kb/42').language, 'de');
  });

  it('keeps confidence within [0, 1] for any input', () => {
    const inputs = [
      ...Object.values(QUERIES).flat(),
      ...Object.values(SENTENCES).flat(),
      ...Object.values(NONE_OF_THE_EIGHT).flat(),
      'Lore Lore Lore',
      'the the the the the the the the',
      'Passwort password mot de passe contraseña',
      Object.values(SENTENCES).flat().join(' ').repeat(3),
    ];
    for (const text of inputs) {
      const { confidence } = detector.detect(text);
      assert.ok(Number.isFinite(confidence) && confidence >= 0 && confidence <= 1, `${text.slice(0, 40)}: ${confidence}`);
    }
  });
});
