import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import type { EmbedOptions, Embedder } from '../ports/embedder.js';
import { EmbedderError } from '../ports/embedder.js';
import type { FitMethod } from './fit-dimensions.js';
import { assertDimensions, fitDimensions } from './fit-dimensions.js';

export type Pooling = 'mean' | 'cls';

export interface TransformersEmbedderOptions {
  /** A model directory in the transformers.js layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx. */
  modelDir: string;
  pooling?: Pooling;
  queryPrefix?: string;
  documentPrefix?: string;
  /**
   * true: onnx/model_quantized.onnx; false: onnx/model.onnx; unset: model.onnx when present, else
   * the quantized one (both are what `optimum` exports; the quantized one is ~4× smaller and faster
   * on CPU for a small loss of quality).
   */
  quantized?: boolean;
  fit?: FitMethod;
  /** Texts per forward pass (default 16): padding makes a batch cost its longest text, so smaller batches waste less. */
  batchSize?: number;
}

export interface ModelFamilyDefaults {
  pooling: Pooling;
  queryPrefix: string;
  documentPrefix: string;
  fit: FitMethod;
}

const BGE_EN_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';
const BGE_ZH_INSTRUCTION = '为这个句子生成表示以用于检索相关文章：';

/**
 * Defaults by model name (the directory's basename), from each family's model card:
 * - e5 (multilingual-e5-small/base/large, e5-*-v2): 'query: ' / 'passage: ' and mean pooling — the
 *   prefixes are part of how e5 was trained; without them retrieval quality drops.
 * - bge-m3: CLS pooling, no instruction.
 * - other bge (bge-small-en-v1.5, ...): CLS pooling and the retrieval instruction on queries only.
 * - anything else: mean pooling, no prefixes (sentence-transformers models such as MiniLM, gte).
 * None of these families is Matryoshka-trained, so all default to projection when fitting.
 */
export function modelFamilyDefaults(modelName: string): ModelFamilyDefaults {
  const name = modelName.toLowerCase();
  const tokens = name.split(/[^a-z0-9.]+/);
  if (tokens.includes('e5')) return { pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ', fit: 'project' };
  if (name.includes('bge-m3')) return { pooling: 'cls', queryPrefix: '', documentPrefix: '', fit: 'project' };
  if (tokens.includes('bge')) {
    const instruction = tokens.includes('zh') ? BGE_ZH_INSTRUCTION : BGE_EN_INSTRUCTION;
    return { pooling: 'cls', queryPrefix: instruction, documentPrefix: '', fit: 'project' };
  }
  return { pooling: 'mean', queryPrefix: '', documentPrefix: '', fit: 'project' };
}

/**
 * A local sentence-embedding model run by transformers.js on onnxruntime-node (CPU), strictly
 * offline: nothing is ever fetched from a model hub. The model loads once, on first use; the
 * library itself is imported only then, so processes that use another embedder never pay for
 * onnxruntime.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  readonly modelDir: string;
  private readonly settings: ModelFamilyDefaults;
  private readonly quantized: boolean;
  private readonly batchSize: number;
  private loading: Promise<FeatureExtractionPipeline> | undefined;

  /** Checks the directory at once, so a bad path fails at startup rather than at the first query. */
  constructor(options: TransformersEmbedderOptions) {
    this.modelDir = resolve(options.modelDir);
    const name = basename(this.modelDir);
    this.id = `onnx:${name}`;
    const defaults = modelFamilyDefaults(name);
    this.settings = {
      pooling: options.pooling ?? defaults.pooling,
      queryPrefix: options.queryPrefix ?? defaults.queryPrefix,
      documentPrefix: options.documentPrefix ?? defaults.documentPrefix,
      fit: options.fit ?? defaults.fit,
    };
    this.batchSize = options.batchSize ?? 16;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${this.batchSize}`);
    }
    this.quantized = options.quantized ?? !existsSync(join(this.modelDir, 'onnx', 'model.onnx'));
    const required = ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', this.modelFile)];
    const missing = required.filter((file) => !existsSync(join(this.modelDir, file)));
    if (missing.length > 0) {
      throw new EmbedderError(
        'model_unavailable',
        `Model directory ${this.modelDir} is missing ${missing.join(', ')} (expected the transformers.js layout: ${required.join(', ')})`,
      );
    }
  }

  private get modelFile(): string {
    return this.quantized ? 'model_quantized.onnx' : 'model.onnx';
  }

  /** Loads the model now instead of on the first embed, e.g. to warm up at startup. */
  async load(): Promise<void> {
    await this.extractor();
  }

  async embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    assertDimensions(options.dimensions);
    if (texts.length === 0) return [];
    const extractor = await this.extractor();
    const prefix = options.kind === 'query' ? this.settings.queryPrefix : this.settings.documentPrefix;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize).map((text) => prefix + text);
      const output = await extractor(batch, { pooling: this.settings.pooling, normalize: true });
      const [rows, width] = output.dims as [number, number];
      const data = output.data as Float32Array;
      if (rows !== batch.length || !(width > 0)) {
        throw new EmbedderError('invalid_response', `Model ${this.modelDir} returned ${rows}×${width} for ${batch.length} texts`);
      }
      for (let row = 0; row < rows; row++) {
        vectors.push(fitDimensions(data.subarray(row * width, (row + 1) * width), options.dimensions, this.settings.fit));
      }
    }
    return vectors;
  }

  /** One load per embedder; a failed load is forgotten so a later call can try again. */
  private extractor(): Promise<FeatureExtractionPipeline> {
    this.loading ??= this.loadPipeline().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private async loadPipeline(): Promise<FeatureExtractionPipeline> {
    const { env, pipeline } = await import('@huggingface/transformers');
    // Process-wide settings of the library; Lore never downloads models, whoever loads them.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    try {
      // An absolute path is read as a directory, never as a hub model id.
      return await pipeline('feature-extraction', this.modelDir, {
        local_files_only: true,
        dtype: this.quantized ? 'q8' : 'fp32',
        device: 'cpu',
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new EmbedderError('model_unavailable', `Cannot load the model in ${this.modelDir}: ${reason}`, undefined, { cause: error });
    }
  }
}
