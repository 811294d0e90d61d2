import type { Logger } from 'pino';
import { ApertiumTranslator } from '../core/adapters/apertium.translator.js';
import { ExtractiveReportGenerator } from '../core/adapters/extractive.report-generator.js';
import { FfmpegAudioDecoder } from '../core/adapters/ffmpeg.audio-decoder.js';
import { OpenAiReportGenerator } from '../core/adapters/openai.report-generator.js';
import { OpenAiTranscriber } from '../core/adapters/openai.transcriber.js';
import { PocketsphinxTranscriber } from '../core/adapters/pocketsphinx.transcriber.js';
import { SsrfSafeHttpClient } from '../core/adapters/ssrf-safe.http-client.js';
import type { OutboundHttp } from '../core/ports/outbound-http.js';
import type { ReportGenerator } from '../core/ports/report-generator.js';
import type { AudioDecoder, Transcriber } from '../core/ports/transcriber.js';
import { CompositeTranslator } from '../core/adapters/composite.translator.js';
import { CatalogueDictionary } from '../core/adapters/catalogue.dictionary.js';
import { EldLanguageDetector } from '../core/adapters/eld.language-detector.js';
import type { LanguageDetector } from '../core/ports/language-detector.js';
import { VocabularyLanguageDetector } from '../core/translation/vocabulary-language-detector.js';
import { FreeDictDictionary } from '../core/adapters/freedict.dictionary.js';
import { DeepLTranslator } from '../core/adapters/deepl.translator.js';
import { FlatKeywordIndex } from '../core/adapters/flat-index/flat.keyword-index.js';
import { FlatVectorIndex } from '../core/adapters/flat-index/flat.vector-index.js';
import { graphPolicyOf } from '../core/adapters/flat-index/vector-graph.js';
import { LexicalEmbedder } from '../core/adapters/lexical.embedder.js';
import { LibreTranslateTranslator } from '../core/adapters/libretranslate.translator.js';
import { OpenAiEmbedder } from '../core/adapters/openai.embedder.js';
import { QdrantVectorIndex } from '../core/adapters/qdrant/qdrant.vector-index.js';
import { PgVectorIndex } from '../core/adapters/pgvector.vector-index.js';
import { PostgresKeywordIndex } from '../core/adapters/postgres.keyword-index.js';
import { TransformersEmbedder } from '../core/adapters/transformers.embedder.js';
import type { Config } from '../core/config.js';
import type { Database } from '../core/db/database.js';
import type { Embedder } from '../core/ports/embedder.js';
import type { KeywordIndex } from '../core/ports/keyword-index.js';
import type { DomainMetrics } from '../core/ports/metrics.js';
import type { BilingualDictionary, TranslationEngine } from '../core/ports/translator.js';
import type { VectorIndex } from '../core/ports/vector-index.js';

/** The adapter of each port that the configuration names. */
export type AdapterConfig = Pick<
  Config,
  'embedder' | 'embedderBatchSize' | 'embedderTimeoutMs' | 'vectorIndex' | 'keywordIndex' | 'translation' | 'addons' | 'languageDetectionDataset'
>;

export function createEmbedder(config: AdapterConfig): Embedder {
  const e = config.embedder;
  switch (e.kind) {
    case 'lexical':
      return new LexicalEmbedder();
    case 'onnx':
      return new TransformersEmbedder({ modelDir: e.modelDir });
    case 'openai':
      return new OpenAiEmbedder({
        baseUrl: e.url,
        model: e.model,
        apiKey: e.apiKey,
        batchSize: config.embedderBatchSize,
        timeoutMs: config.embedderTimeoutMs,
      });
  }
}

export function createVectorIndex(db: Database, config: AdapterConfig, embedder: Embedder, log: Logger): VectorIndex {
  const v = config.vectorIndex;
  if (v.kind === 'qdrant' && v.qdrant) {
    return new QdrantVectorIndex(db, embedder.id, { ...v.qdrant, efSearch: v.efSearch, batchSize: 256 }, log.child({ component: 'vector-index' }));
  }
  if (v.kind !== 'flat') return new PgVectorIndex(db, v, log.child({ component: 'vector-index' }));
  // While the flat index loads, the database searches exactly, with no HNSW indexes to keep up.
  const loading = new PgVectorIndex(db, { graphs: false });
  const graph = graphPolicyOf(v);
  return new FlatVectorIndex(db, embedder.id, loading, log.child({ component: 'vector-index' }), {
    threads: v.searchThreads,
    keywords: config.keywordIndex === 'flat',
    graph,
    snapshotDir: v.snapshotDir,
    snapshotIntervalMs: v.snapshotIntervalSeconds * 1000,
  });
}

/** The keyword search the configuration asks for: in memory over a flat vector index's lexemes, or in the database. */
export function createKeywordIndex(db: Database, config: AdapterConfig, vectorIndex: VectorIndex): KeywordIndex {
  const database = new PostgresKeywordIndex(db);
  // The flat keyword index searches the database until the flat vector index has loaded.
  return config.keywordIndex === 'flat' && vectorIndex instanceof FlatVectorIndex ? new FlatKeywordIndex(vectorIndex, database) : database;
}

/**
 * The catalogue dictionaries (software vocabulary for every pair of the eight languages, shipped
 * with Lore), unless CATALOGUE_DICTIONARY_DIR is `none`: query translation adds their translations,
 * and keyword search finds a query's words by their synonyms through them (core/search/synonyms.ts).
 */
export function createCatalogueDictionary(config: AdapterConfig): CatalogueDictionary | null {
  const dir = config.translation.catalogueDictionaryDir;
  return dir === 'none' ? null : new CatalogueDictionary(dir ? { dir } : {});
}

/**
 * eld with the dataset the configuration names, and, unless CATALOGUE_DICTIONARY_DIR is `none`,
 * the catalogue dictionaries' words to tell short texts apart where eld is unsure
 * (core/translation/vocabulary-language-detector.ts).
 */
export async function createLanguageDetector(config: AdapterConfig, log: Logger): Promise<LanguageDetector> {
  const eld = await EldLanguageDetector.load(config.languageDetectionDataset);
  const catalogues = createCatalogueDictionary(config);
  if (!catalogues) return eld;
  try {
    const vocabularies = await catalogues.vocabularies();
    return vocabularies.size ? new VocabularyLanguageDetector(eld, vocabularies) : eld;
  } catch (err) {
    log.warn({ err }, 'the catalogue dictionaries could not be read: short texts are detected by eld alone');
    return eld;
  }
}

/**
 * The translation engines the configuration names, combined (best engine per pair first). Unset
 * (`auto`): Apertium when its program is installed, else none, so translation is off.
 */
export function createTranslator(config: AdapterConfig, metrics: DomainMetrics, catalogues: BilingualDictionary | null = createCatalogueDictionary(config)): CompositeTranslator {
  const t = config.translation;
  const names = t.engines === 'auto' ? (ApertiumTranslator.isInstalled(t.apertium.binary) ? ['apertium' as const] : []) : t.engines;
  const http = { timeoutMs: t.httpTimeoutMs };
  const engines: TranslationEngine[] = names.map((name) => {
    switch (name) {
      case 'apertium':
        return new ApertiumTranslator(t.apertium);
      case 'libretranslate':
        return new LibreTranslateTranslator({ ...http, url: t.libreTranslate!.url, apiKey: t.libreTranslate!.apiKey });
      case 'deepl':
        return new DeepLTranslator({ ...http, url: t.deepl!.url, apiKey: t.deepl!.apiKey });
    }
  });
  // The dictionaries are part of translation: off with it.
  const dictionaries = engines.length ? [new FreeDictDictionary({ dir: t.freedictDir })] : [];
  const vocabularies = engines.length && catalogues ? [catalogues] : [];
  return new CompositeTranslator(engines, { healthTtlMs: t.healthTtlSeconds * 1000, metrics, dictionaries, vocabularies });
}

/** The add-ons' engines: audio decoding, transcription (none when switched off), reports, and the callbacks' client. */
export function createAddonAdapters(config: AdapterConfig): {
  audioDecoder: AudioDecoder;
  transcriber: Transcriber | null;
  reportGenerator: ReportGenerator;
  outboundHttp: OutboundHttp;
} {
  const a = config.addons;
  const t = a.transcription;
  const transcriber =
    t.engine === 'local'
      ? new PocketsphinxTranscriber({ binary: t.pocketsphinxBinary, modelDir: t.modelDir, timeoutMs: a.transcriptionTimeoutMs })
      : t.engine === 'openai'
        ? new OpenAiTranscriber({ baseUrl: t.url, model: t.model, apiKey: t.apiKey, languages: t.languages, timeoutMs: a.transcriptionTimeoutMs })
        : null;
  return {
    audioDecoder: new FfmpegAudioDecoder({
      ffmpegBinary: a.ffmpegBinary,
      ffprobeBinary: a.ffprobeBinary,
      maxSeconds: a.maxAudioSeconds,
      timeoutMs: a.transcriptionTimeoutMs,
    }),
    transcriber,
    reportGenerator:
      a.report.engine === 'openai'
        ? new OpenAiReportGenerator({ baseUrl: a.report.url, model: a.report.model, apiKey: a.report.apiKey, timeoutMs: a.reportTimeoutMs })
        : new ExtractiveReportGenerator(),
    outboundHttp: new SsrfSafeHttpClient({ allowedNetworks: a.callbacks.allowedNetworks, timeoutMs: a.callbacks.timeoutMs }),
  };
}
