import { createRequire } from 'node:module';
import type { Report } from '../addons/report.schema.js';
import type { GeneratedReport, ReportGenerator } from '../ports/report-generator.js';
import type { Language } from '../translation/translation.schema.js';

const stopwordLists = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;

/** Words that mark a decision or an action item, per language (lower case, matched at word starts). */
const CUES: Record<Language, { decision: RegExp; action: RegExp; title: string }> = {
  en: { decision: /\b(decided|decision|agreed|approved|resolved|we will go with)/iu, action: /\b(will|must|should|needs? to|has to|action item|to ?do|follow[ -]up)\b/iu, title: 'Report' },
  nl: { decision: /\b(besloten|besluit|afgesproken|goedgekeurd|akkoord)/iu, action: /\b(zal|zullen|moet|moeten|actiepunt|gaat .* doen)\b/iu, title: 'Verslag' },
  fr: { decision: /\b(décidé|décision|convenu|approuvé|validé)/iu, action: /\b(va|vont|doit|doivent|devra|action|se charge)\b/iu, title: 'Compte rendu' },
  de: { decision: /\b(beschlossen|entschieden|entscheidung|vereinbart|genehmigt)/iu, action: /\b(wird|werden|muss|müssen|soll|sollen|aufgabe|kümmert sich)\b/iu, title: 'Bericht' },
  es: { decision: /\b(decidi|decidimos|decisión|acordad|aprobad)/iu, action: /\b(va a|van a|debe|deben|tarea|se encargará|tiene que)\b/iu, title: 'Informe' },
  it: { decision: /\b(deciso|decisione|concordato|approvato|stabilito)/iu, action: /\b(deve|devono|farà|faranno|compito|si occuperà)\b/iu, title: 'Resoconto' },
  bg: { decision: /(решихме|решение|решено|договорихме|одобрен)/iu, action: /(ще |трябва|задача|поема)/iu, title: 'Доклад' },
  ro: { decision: /\b(decis|decizie|convenit|aprobat|stabilit)/iu, action: /\b(va|vor|trebuie|sarcină|se ocupă)\b/iu, title: 'Raport' },
};

/** "Name: text" at the start of a line: a speaker label (one to three capitalised words). */
const SPEAKER = /^\s*([\p{Lu}][\p{L}'’.-]{0,30}(?:\s[\p{Lu}][\p{L}'’.-]{0,30}){0,2})\s*:\s+(.*)$/u;

interface Sentence {
  text: string;
  speaker: string | null;
  position: number;
  words: string[];
}

function sentencesOf(transcript: string): { sentences: Sentence[]; participants: string[] } {
  const sentences: Sentence[] = [];
  const participants: string[] = [];
  for (const rawLine of transcript.split(/\r?\n/)) {
    const match = SPEAKER.exec(rawLine);
    const speaker = match ? match[1]!.trim() : null;
    if (speaker && !participants.includes(speaker)) participants.push(speaker);
    const line = match ? match[2]! : rawLine;
    for (const piece of line.split(/(?<=[.!?…])\s+/u)) {
      const text = piece.trim();
      if (text.length < 2) continue;
      sentences.push({ text, speaker, position: sentences.length, words: text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [] });
    }
  }
  return { sentences, participants };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/**
 * The built-in engine: an extractive report that needs no model. Sentences are scored by how much
 * of the transcript's vocabulary they carry (content words weighted by frequency, stop words of
 * the transcript's language left out); the best make the summary and key points, cue words of the
 * language find decisions and action items, and "Name:" labels give the participants.
 */
export class ExtractiveReportGenerator implements ReportGenerator {
  readonly id = 'extractive';

  healthy(): Promise<boolean> {
    return Promise.resolve(true);
  }

  generate(transcript: string, language: Language | null): Promise<GeneratedReport> {
    const lang: Language = language ?? 'en';
    const stop = new Set(stopwordLists[lang] ?? []);
    const { sentences, participants } = sentencesOf(transcript);
    const frequency = new Map<string, number>();
    for (const s of sentences) for (const w of s.words) if (w.length > 2 && !stop.has(w)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
    const top = Math.max(1, ...frequency.values());
    const score = (s: Sentence) => {
      const content = s.words.filter((w) => frequency.has(w));
      if (!content.length) return 0;
      return content.reduce((sum, w) => sum + frequency.get(w)! / top, 0) / Math.sqrt(s.words.length);
    };
    const ranked = [...sentences].sort((a, b) => score(b) - score(a) || a.position - b.position);
    const inOrder = (list: Sentence[]) => [...list].sort((a, b) => a.position - b.position);
    const summary = inOrder(ranked.slice(0, 3));
    const keyPoints = inOrder(ranked.slice(0, 8)).filter((s) => !summary.includes(s) || ranked.length <= 3);
    const cues = CUES[lang];
    const decisions = sentences.filter((s) => cues.decision.test(s.text));
    const actions = sentences.filter((s) => cues.action.test(s.text) && !decisions.includes(s));
    const keywords = [...frequency.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([w]) => w);
    const report: Report = {
      language,
      title: clip(keywords.length ? `${cues.title}: ${keywords.join(', ')}` : cues.title, 300),
      summary: clip(summary.map((s) => s.text).join(' ') || transcript.trim(), 5000),
      key_points: keyPoints.slice(0, 20).map((s) => clip(s.text, 1000)),
      decisions: decisions.slice(0, 20).map((s) => clip(s.text, 1000)),
      action_items: actions.slice(0, 30).map((s) => ({ text: clip(s.text, 1000), owner: s.speaker })),
      participants: participants.slice(0, 50).map((p) => clip(p, 200)),
    };
    const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
    return Promise.resolve({ report, inputTokens: words(transcript), outputTokens: words(JSON.stringify(report)) });
  }
}
