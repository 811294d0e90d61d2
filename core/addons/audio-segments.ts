import type { AudioSegment } from '../ports/transcriber.js';

export const SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = SAMPLE_RATE * 2;

/** A WAV container around 16 kHz mono 16-bit PCM. */
export function wavOf(pcm: Buffer): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(BYTES_PER_SECOND, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** How many segments of `segmentSeconds` a PCM buffer makes (a job's `total_chunks`). */
export function segmentCount(pcmBytes: number, segmentSeconds: number): number {
  return Math.max(1, Math.ceil(pcmBytes / (segmentSeconds * BYTES_PER_SECOND)));
}

/** The segment `index` of decoded PCM, as WAV. */
export function pcmSegment(pcm: Buffer, index: number, segmentSeconds: number): AudioSegment {
  const size = segmentSeconds * BYTES_PER_SECOND;
  const slice = pcm.subarray(index * size, Math.min(pcm.length, (index + 1) * size));
  return { index, startSeconds: index * segmentSeconds, durationSeconds: slice.length / BYTES_PER_SECOND, wav: wavOf(slice) };
}
