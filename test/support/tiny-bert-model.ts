import { seededRandom } from '../../core/shared/seeded-random.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs';

/**
 * Builds a tiny BERT-shaped model directory in the transformers.js/ONNX layout, so the
 * transformers.js adapter runs against a real tokenizer and a real onnxruntime session without
 * downloading weights (none can be had offline). The weights are seeded random numbers: the
 * vectors mean nothing, but they are deterministic and differ between texts.
 *
 * Graph: hidden = Tanh((Gather(word, input_ids) + Gather(type, token_type_ids)) · W) ⊙ mask,
 * declared with the three inputs and the `last_hidden_state` output a BERT export has.
 */

/** Only the parts of onnx.proto (proto2 upstream; field numbers and types kept) the graph needs. */
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5; FLOATS = 6; INTS = 7; STRINGS = 8; }
  string name = 1;
  float f = 2;
  int64 i = 3;
  bytes s = 4;
  TensorProto t = 5;
  repeated float floats = 7;
  repeated int64 ints = 8;
  AttributeType type = 20;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  string name = 3;
  string op_type = 4;
  repeated AttributeProto attribute = 5;
  string domain = 7;
}
message ModelProto {
  int64 ir_version = 1;
  string producer_name = 2;
  GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
message GraphProto {
  repeated NodeProto node = 1;
  string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message TensorProto {
  repeated int64 dims = 1;
  int32 data_type = 2;
  string name = 8;
  bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension {
    oneof value { int64 dim_value = 1; string dim_param = 2; }
  }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
`;

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;

const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

const WORDS = [
  'the', 'a', 'an', 'of', 'to', 'and', 'in', 'is', 'it', 'for', 'on', 'with', 'as', 'by', 'at',
  'cat', 'dog', 'bird', 'fish', 'horse', 'cow', 'sheep', 'mouse', 'lion', 'tiger',
  'sat', 'ran', 'jumped', 'swam', 'flew', 'ate', 'slept', 'played', 'barked', 'sang',
  'mat', 'house', 'garden', 'river', 'tree', 'field', 'street', 'table', 'chair', 'bed',
  'red', 'blue', 'green', 'small', 'big', 'old', 'new', 'happy', 'quiet', 'loud',
  'invoice', 'payment', 'refund', 'order', 'account', 'password', 'login', 'error', 'server', 'database',
  'query', 'passage', 'search', 'document', 'knowledge', 'base', 'chunk', 'vector', 'model', 'text',
  'represent', 'this', 'sentence', 'searching', 'relevant', 'passages',
  'weather', 'rain', 'sun', 'snow', 'wind', 'cloud',
  '##s', '##ed', '##ing', '##er', '##ly', '##y', ':', '.', ',', '?', '!',
];

export const TINY_BERT_HIDDEN_SIZE = 16;

export interface TinyBertModel {
  dir: string;
  vocabSize: number;
  hiddenSize: number;
  remove(): Promise<void>;
}

/** Writes the model into a fresh temp directory; `quantizedName` also writes the same graph as `onnx/model_quantized.onnx`. */
export async function buildTinyBertModel(options: { name?: string; quantizedName?: boolean } = {}): Promise<TinyBertModel> {
  const root = await mkdtemp(join(tmpdir(), 'lore-tiny-bert-'));
  const dir = join(root, options.name ?? 'tiny-bert');
  await mkdir(join(dir, 'onnx'), { recursive: true });

  const vocab = [...SPECIAL_TOKENS, ...WORDS];
  const hidden = TINY_BERT_HIDDEN_SIZE;
  const model = encodeModel(vocab.length, hidden);

  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfigJson()));
  await writeFile(join(dir, 'config.json'), JSON.stringify(configJson(vocab.length, hidden)));
  await writeFile(join(dir, 'onnx', options.quantizedName === true ? 'model_quantized.onnx' : 'model.onnx'), model);

  return {
    dir,
    vocabSize: vocab.length,
    hiddenSize: hidden,
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

function encodeModel(vocabSize: number, hidden: number): Uint8Array {
  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const ModelProto = root.lookupType('onnx.ModelProto');
  const random = seededRandom(0x10e5);
  const weights = (n: number, scale: number): Float32Array =>
    Float32Array.from({ length: n }, () => (random() * 2 - 1) * scale);

  const batchSeq = (elemType: number, name: string, third?: number) => ({
    name,
    type: {
      tensor_type: {
        elem_type: elemType,
        shape: {
          dim: [{ dim_param: 'batch_size' }, { dim_param: 'sequence_length' }, ...(third === undefined ? [] : [{ dim_value: third }])],
        },
      },
    },
  });
  const tensor = (name: string, dims: number[], dataType: number, data: Float32Array | BigInt64Array) => ({
    name,
    dims,
    data_type: dataType,
    raw_data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  });
  const node = (opType: string, input: string[], output: string[], attribute: object[] = []) => ({
    op_type: opType,
    name: output[0],
    input,
    output,
    attribute,
  });

  const message = ModelProto.fromObject({
    ir_version: 8,
    producer_name: 'lore-tiny-bert',
    opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: 'tiny_bert',
      initializer: [
        tensor('word_embeddings', [vocabSize, hidden], FLOAT, weights(vocabSize * hidden, 1)),
        tensor('token_type_embeddings', [2, hidden], FLOAT, weights(2 * hidden, 0.1)),
        tensor('dense', [hidden, hidden], FLOAT, weights(hidden * hidden, 0.5)),
        tensor('last_axis', [1], INT64, BigInt64Array.from([-1n])),
      ],
      node: [
        node('Gather', ['word_embeddings', 'input_ids'], ['words'], [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }]),
        node('Gather', ['token_type_embeddings', 'token_type_ids'], ['types'], [{ name: 'axis', type: ATTRIBUTE_INT, i: 0 }]),
        node('Add', ['words', 'types'], ['embedded']),
        node('MatMul', ['embedded', 'dense'], ['projected']),
        node('Tanh', ['projected'], ['activated']),
        node('Cast', ['attention_mask'], ['mask_float'], [{ name: 'to', type: ATTRIBUTE_INT, i: FLOAT }]),
        node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_3d']),
        node('Mul', ['activated', 'mask_3d'], ['last_hidden_state']),
      ],
      input: [batchSeq(INT64, 'input_ids'), batchSeq(INT64, 'attention_mask'), batchSeq(INT64, 'token_type_ids')],
      output: [batchSeq(FLOAT, 'last_hidden_state', hidden)],
    },
  });
  return ModelProto.encode(message).finish();
}

function tokenizerJson(vocab: string[]): object {
  const special = (id: number) => ({ id: vocab[id], type_id: 0 });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: special(2) }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: special(3) }],
      pair: [
        { SpecialToken: special(2) },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: special(3) },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
    },
  };
}

function tokenizerConfigJson(): object {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 32,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
  };
}

function configJson(vocabSize: number, hidden: number): object {
  return {
    model_type: 'bert',
    architectures: ['BertModel'],
    vocab_size: vocabSize,
    hidden_size: hidden,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    intermediate_size: hidden * 2,
    max_position_embeddings: 32,
    type_vocab_size: 2,
    pad_token_id: 0,
  };
}

