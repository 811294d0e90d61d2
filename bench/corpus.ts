/**
 * A seeded, deterministic synthetic corpus for retrieval benchmarks: documents of a few chunks,
 * mostly English with some Dutch, French, German, Spanish, Italian, Bulgarian and Romanian.
 *
 * Real embedders cluster texts by topic, and so does the lexical embedder when documents share
 * words, so each document belongs to a topic that biases its words: topic content words from the
 * language's list, and topic "domain terms" (product names, codes, jargon) from a large synthetic
 * pool that all languages share. Word frequencies are Zipf-like, as in real text, so a few words
 * are everywhere and most are rare. Any document can be rebuilt from (seed, index) alone, which
 * lets queries be drawn from documents without keeping the corpus in memory.
 */
import type { Language } from '../core/translation/translation.schema.js';
import { seededRandom } from '../core/shared/seeded-random.js';
import { DEFAULT_CHUNKING, chunkText } from '../core/ingestion/chunker.js';


/** Derives independent streams (one per document, per query) from one seed. */
function mix(seed: number, index: number, stream: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35) ^ Math.imul(stream + 7, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

/** Samples indexes 0..n-1 with weight 1/(rank+1)^s. */
class Zipf {
  private readonly cumulative: Float64Array;

  constructor(n: number, s = 1.05) {
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let i = 0; i < n; i++) {
      total += 1 / (i + 1) ** s;
      this.cumulative[i] = total;
    }
    for (let i = 0; i < n; i++) this.cumulative[i] = this.cumulative[i]! / total;
  }

  sample(random: () => number): number {
    const u = random();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

interface Lexicon {
  /** Function words, most frequent first. */
  function: string[];
  /** Content words (nouns, verbs, adjectives). */
  content: string[];
  /** Short query openers, e.g. "how to". */
  openers: string[];
}

const words = (s: string): string[] => s.trim().split(/\s+/);
const phrases = (s: string): string[] => s.split(';').map((p) => p.trim());

const LEXICONS: Record<Language, Lexicon> = {
  en: {
    function: words(`the of and to a in is that for it with as on be at by this are from or have an not
      was will can all which their if more when has there been would should may each other into than
      its our your these also after before about over only between under any most such through during`),
    content: words(`account access address agreement analysis application approval archive audit backup
      balance benefit billing board booking branch budget building business calendar campaign capacity
      card career case certificate change channel claim client cluster code colleague committee company
      complaint compliance configuration contract contractor cost council course coverage credit customer
      dashboard data database deadline delivery department deployment deposit design device discount
      document driver employee energy engine equipment error estimate event expense export facility
      feature feedback fee file finance firewall form framework fund guideline hardware health holiday
      hospital incident income infrastructure installation insurance interface inventory investment invoice
      issue item laboratory language laptop lease ledger licence loan location login maintenance manager
      manual market meeting member message method migration model module monitor mortgage network notice
      office onboarding order outage owner package parking partner password patient payment payroll pension
      permission phone plan platform policy portal premium printer priority procedure process product
      profile project property proposal provider purchase quality quarter quota rate receipt record
      recovery refund region registration release renewal rent report request requirement reservation
      resource response retention review risk roadmap role router safety salary sale schedule schema
      security sensor server service session settlement shipment shipping signature software source staff
      standard statement storage strategy student subscription supplier supply support survey system tax
      team template tenant terminal test ticket timeline token training transaction transfer travel trial
      update upgrade user vacation vehicle vendor version warehouse warranty website workflow workshop
      approve assign calculate cancel check collect configure confirm connect create deliver delete deploy
      download enable estimate export extend file install manage measure migrate monitor notify process
      publish receive reduce register remove renew repair replace reset restore review schedule send
      submit support track transfer update upload validate verify annual available common critical current
      daily digital direct effective external final financial formal general internal legal local main
      manual monthly national new official online open personal previous private public quarterly recent
      regular remote required secure senior shared special standard technical temporary total urgent valid
      weekly`),
    openers: phrases('how to; what is; why does; where can I; when should we; who approves'),
  },
  nl: {
    function: words(`de het een en van in is dat op te voor met zijn niet aan er om ook als bij door
      maar naar dan uit worden wordt kan over tot moet deze die geen meer nog na onder`),
    content: words(`aanvraag afdeling afspraak bedrijf bestelling betaling bestand beveiliging contract
      factuur gebruiker gegevens gemeente huur klant kosten levering medewerker overeenkomst personeel
      planning project rapport rekening salaris storing systeem toegang verzekering vergadering wachtwoord
      werkgever werknemer ziekenhuis afspraken beleid budget toestemming onderhoud opslag vakantie
      dienst formulier inschrijving vergunning belasting pensioen uitbetaling leverancier software netwerk
      aanvragen betalen controleren goedkeuren installeren leveren melden opzeggen registreren versturen
      verwerken wijzigen jaarlijks maandelijks nieuw openbaar belangrijk snel veilig tijdelijk
      dringend geldig`),
    openers: phrases('hoe kan ik; wat is; waarom'),
  },
  fr: {
    function: words(`le la les de des du un une et en est que qui pour dans sur par pas plus avec ce
      cette sont au aux ou mais comme tout nous vous leur être avoir`),
    content: words(`abonnement accès adresse assurance banque bureau client commande compte contrat
      demande document données employé entreprise équipe facture formation fournisseur logiciel livraison
      mot passe paiement personnel politique projet rapport réunion salaire sécurité serveur service
      société stockage système tarif utilisateur congé dossier échéance procédure réseau licence
      maintenance mise jour remboursement impôt retraite inscription autorisation budget
      annuler configurer envoyer installer livrer payer recevoir renouveler signer supprimer vérifier
      valider mensuel annuel nouveau public privé urgent temporaire sécurisé obligatoire`),
    openers: phrases('comment; pourquoi; quel est'),
  },
  de: {
    function: words(`der die das und ist in zu den von mit nicht sich auf für im dem ein eine des
      auch es an werden aus er sie nach bei wird oder wie dass kann muss`),
    content: words(`Abteilung Anfrage Antrag Arbeitgeber Arbeitsvertrag Benutzer Bestellung Betrieb
      Buchhaltung Datenschutz Datei Dienst Drucker Frist Gehalt Genehmigung Kunde Kündigung Lieferant
      Lieferung Mitarbeiter Netzwerk Passwort Rechnung Richtlinie Server Sicherheit Software Speicher
      Steuer System Urlaub Vertrag Versicherung Wartung Zahlung Zugang Zugriff Besprechung Schulung
      Rente Anmeldung Lizenz Aktualisierung Erstattung Unterschrift Vorgang Projekt Bericht Haushalt
      beantragen bestellen bezahlen einrichten genehmigen installieren kündigen liefern melden prüfen
      senden verlängern jährlich monatlich neu öffentlich dringend gültig sicher vorübergehend
      erforderlich`),
    openers: phrases('wie kann ich; was ist; warum'),
  },
  es: {
    function: words(`el la los las de del y en que un una es por para con no se al lo como más pero
      sus su le ya o este esta entre cuando todo también`),
    content: words(`acceso cliente contrato contraseña cuenta datos documento empleado empresa
      envío equipo factura formulario gestión impuesto informe licencia mantenimiento oficina pago
      pedido personal política proveedor proyecto red reunión salario seguridad seguro servidor
      servicio sistema solicitud suscripción usuario vacaciones almacenamiento presupuesto reembolso
      jubilación inscripción permiso firma procedimiento actualización
      cancelar configurar enviar instalar pagar recibir renovar solicitar verificar aprobar mensual
      anual nuevo público privado urgente temporal obligatorio seguro`),
    openers: phrases('cómo puedo; qué es; por qué'),
  },
  it: {
    function: words(`il lo la i gli le di del della e in che un una è per con non si al come più ma
      sono da dei nel alla anche o questo questa`),
    content: words(`accesso abbonamento azienda cliente contratto dati dipendente documento fattura
      fornitore gestione imposta licenza manutenzione modulo ordine pagamento password personale
      politica progetto rapporto rete richiesta riunione sicurezza server servizio sistema spedizione
      stipendio ufficio utente ferie archiviazione bilancio rimborso pensione iscrizione permesso firma
      procedura aggiornamento assicurazione
      annullare configurare inviare installare pagare ricevere rinnovare richiedere verificare approvare
      mensile annuale nuovo pubblico privato urgente temporaneo obbligatorio sicuro`),
    openers: phrases('come posso; che cosa; perché'),
  },
  bg: {
    function: words(`и в на за с от да се не е че по към като това са при до но или който която
      които той тя те ще може трябва`),
    content: words(`договор служител фирма клиент фактура плащане достъп парола потребител данни
      документ заявка отдел система сървър мрежа сигурност застраховка отпуск заплата доставка
      поръчка доставчик проект доклад среща бюджет лиценз поддръжка данък пенсия регистрация
      разрешение подпис процедура актуализация обучение съхранение възстановяване сметка услуга
      одобрявам изпращам инсталирам плащам получавам подновявам проверявам заявявам отменям
      месечен годишен нов публичен частен спешен временен задължителен сигурен`),
    openers: phrases('как да; какво е; защо'),
  },
  ro: {
    function: words(`și în de la a cu pe care este nu se un o din pentru mai sau ca dar sunt al ale
      prin după fost către acest această`),
    content: words(`acces abonament angajat client contract cont date document factură firmă
      formular furnizor impozit licență întreținere ofertă parolă personal plată politică proiect
      raport rețea cerere ședință securitate server serviciu sistem salariu utilizator concediu
      comandă livrare stocare buget rambursare pensie înregistrare permisiune semnătură procedură
      actualizare asigurare
      anula configura trimite instala plăti primi reînnoi solicita verifica aproba lunar anual nou
      public privat urgent temporar obligatoriu sigur`),
    openers: phrases('cum pot; ce este; de ce'),
  },
};

/** Document languages: mostly English, as in a typical European tenant, with every language present. */
const LANGUAGE_SHARES: Array<[Language, number]> = [
  ['en', 0.7],
  ['nl', 0.05],
  ['fr', 0.05],
  ['de', 0.05],
  ['es', 0.04],
  ['it', 0.04],
  ['bg', 0.04],
  ['ro', 0.03],
];

/** Tag values; each is ~10% of documents, so `tags.department = <one>` selects about a tenth. */
export const DEPARTMENTS = ['legal', 'finance', 'hr', 'it', 'sales', 'support', 'operations', 'marketing', 'research', 'facilities'] as const;

const SYLLABLES = words(`ka ri to mi sa lo ve na qu ex tra zen dor vel mar fin sol gra pex lum tor ix on
  ar el um os cor bel den fal gor hal jin kel mon nor pal ral sen tal val wor yar zor bri cla dro fle
  glo kri plu sta tre vro`);
const TERM_SUFFIXES = ['', '', '', 'ix', 'ator', 'ware', 'net', 'sync', 'hub', 'pro'];

export interface CorpusDocument {
  title: string;
  content: string;
  tags: Record<string, string>;
  language: Language;
}

export interface CorpusOptions {
  seed: number;
  /** Distinct topics: documents of one topic share vocabulary and so cluster together. */
  topics: number;
  /** Size of the shared pool of synthetic domain terms. */
  terms: number;
}

interface Topic {
  /** Per language: indexes into that language's content words that this topic favours. */
  content: Record<Language, number[]>;
  /** Indexes into the domain-term pool. */
  terms: number[];
}

export class SyntheticCorpus {
  private readonly terms: string[];
  private readonly topics: Topic[];
  private readonly topicZipf: Zipf;
  private readonly functionZipf: Record<Language, Zipf>;
  private readonly contentZipf: Record<Language, Zipf>;
  private readonly termZipf: Zipf;
  private readonly topicTermZipf = new Zipf(40, 0.8);
  private readonly topicContentZipf = new Zipf(24, 0.8);

  constructor(private readonly options: CorpusOptions = { seed: 42, topics: 300, terms: 8000 }) {
    const random = seededRandom(mix(options.seed, 0, 1));
    const seen = new Set<string>();
    this.terms = [];
    while (this.terms.length < options.terms) {
      const syllables = 2 + Math.floor(random() * 3);
      let term = '';
      for (let i = 0; i < syllables; i++) term += SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
      term += TERM_SUFFIXES[Math.floor(random() * TERM_SUFFIXES.length)]!;
      // Some terms are model or form numbers, which keyword and lexical search must match exactly.
      if (random() < 0.08) term = `${term.slice(0, 3).toUpperCase()}-${100 + Math.floor(random() * 900)}`;
      if (!seen.has(term)) {
        seen.add(term);
        this.terms.push(term);
      }
    }
    this.termZipf = new Zipf(this.terms.length, 0.9);
    this.functionZipf = this.perLanguage((l) => new Zipf(LEXICONS[l].function.length, 1.0));
    this.contentZipf = this.perLanguage((l) => new Zipf(LEXICONS[l].content.length, 0.9));
    this.topics = [];
    for (let t = 0; t < options.topics; t++) {
      const content = this.perLanguage((l) => pick(random, LEXICONS[l].content.length, 24));
      this.topics.push({ content, terms: pick(random, this.terms.length, 40) });
    }
    this.topicZipf = new Zipf(options.topics, 0.6);
  }

  private perLanguage<T>(make: (language: Language) => T): Record<Language, T> {
    return Object.fromEntries(LANGUAGE_SHARES.map(([l]) => [l, make(l)])) as Record<Language, T>;
  }

  /** Document `index`, always the same for the same seed. */
  document(index: number): CorpusDocument & { topic: number } {
    const random = seededRandom(mix(this.options.seed, index, 2));
    const language = pickLanguage(random());
    const topic = this.topicZipf.sample(random);
    const department = DEPARTMENTS[Math.floor(random() * DEPARTMENTS.length)]!;
    const year = String(2018 + Math.floor(random() * 8));
    const paragraphs: string[] = [];
    const paragraphCount = 3 + Math.floor(random() * 10);
    for (let p = 0; p < paragraphCount; p++) {
      const sentences: string[] = [];
      const sentenceCount = 2 + Math.floor(random() * 4);
      for (let s = 0; s < sentenceCount; s++) sentences.push(this.sentence(random, language, topic));
      paragraphs.push(sentences.join(' '));
    }
    const titleWords = [this.contentWord(random, language, topic), this.term(random, topic), this.contentWord(random, language, topic)];
    return {
      title: capitalise(`${titleWords.join(' ')} ${year}`),
      content: paragraphs.join('\n\n'),
      tags: { department, year },
      language,
      topic,
    };
  }

  /** The first documents, in order, until they hold at least `size` chunks as Lore's default chunking cuts them. */
  documentsHolding(size: number): { docs: Array<CorpusDocument & { topic: number }>; chunks: number } {
    const docs: Array<CorpusDocument & { topic: number }> = [];
    let chunks = 0;
    while (chunks < size) {
      const doc = this.document(docs.length);
      chunks += chunkText(doc.content, DEFAULT_CHUNKING).length;
      docs.push(doc);
    }
    return { docs, chunks };
  }

  /**
   * A search query about document `target`: either a few key words lifted from one of its
   * sentences (someone who half-remembers a passage), or the words a user would type about its
   * topic, in the document's language. Queries are 2–7 words.
   */
  query(index: number, target: number): string {
    const random = seededRandom(mix(this.options.seed, index, 3));
    const doc = this.document(target);
    const lexicon = LEXICONS[doc.language];
    if (random() < 0.5) {
      const sentences = doc.content.split(/(?<=[.?!])\s+/);
      const sentence = sentences[Math.floor(random() * sentences.length)] ?? doc.title;
      const stop = new Set(lexicon.function);
      const keys = sentence
        .replace(/[.?!,]/g, '')
        .split(/\s+/)
        .filter((w) => w && !stop.has(w.toLowerCase()));
      const length = Math.min(keys.length, 2 + Math.floor(random() * 4));
      const start = Math.floor(random() * Math.max(1, keys.length - length + 1));
      return keys.slice(start, start + length).join(' ').toLowerCase() || doc.title;
    }
    const parts: string[] = [];
    if (random() < 0.4) parts.push(lexicon.openers[Math.floor(random() * lexicon.openers.length)]!);
    parts.push(this.contentWord(random, doc.language, doc.topic));
    if (random() < 0.7) parts.push(this.term(random, doc.topic));
    if (random() < 0.5) parts.push(this.contentWord(random, doc.language, doc.topic));
    return parts.join(' ').toLowerCase();
  }

  private sentence(random: () => number, language: Language, topic: number): string {
    const lexicon = LEXICONS[language];
    const length = 8 + Math.floor(random() * 15);
    const out: string[] = [];
    for (let i = 0; i < length; i++) {
      const r = random();
      if (r < 0.42) out.push(lexicon.function[this.functionZipf[language].sample(random)]!);
      else if (r < 0.82) out.push(this.contentWord(random, language, topic));
      else if (r < 0.97) out.push(this.term(random, topic));
      else out.push(String(Math.floor(random() * (random() < 0.5 ? 100 : 100_000))));
    }
    const end = random() < 0.1 ? '?' : '.';
    const sentence = out.join(' ');
    // A comma now and then, so the text has the punctuation the chunker and tokenisers see in prose.
    const withComma = length > 12 ? sentence.replace(/ (\S+) /, (m, w: string) => (random() < 0.5 ? ` ${w}, ` : m)) : sentence;
    return capitalise(withComma) + end;
  }

  private contentWord(random: () => number, language: Language, topic: number): string {
    const list = LEXICONS[language].content;
    // Most content words come from the topic's favourites; the rest from the language at large.
    if (random() < 0.55) return list[this.topics[topic]!.content[language][this.topicContentZipf.sample(random)]!]!;
    return list[this.contentZipf[language].sample(random)]!;
  }

  private term(random: () => number, topic: number): string {
    if (random() < 0.75) return this.terms[this.topics[topic]!.terms[this.topicTermZipf.sample(random)]!]!;
    return this.terms[this.termZipf.sample(random)]!;
  }
}

function pickLanguage(u: number): Language {
  let acc = 0;
  for (const [language, share] of LANGUAGE_SHARES) {
    acc += share;
    if (u < acc) return language;
  }
  return 'en';
}

/** `count` distinct indexes below `n`, in random order. */
function pick(random: () => number, n: number, count: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < Math.min(n, count)) chosen.add(Math.floor(random() * n));
  return [...chosen];
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
