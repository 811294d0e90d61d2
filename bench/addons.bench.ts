/**
 * The add-ons' engines, measured where they run: transcription word error rate and real-time
 * factor on real recorded English speech (LibriVox readings shipped by Debian's
 * pocketsphinx-testdata, with their reference transcriptions), and on espeak-ng's synthetic speech
 * for contrast; report generation time per 10,000 characters of transcript.
 *
 *   npx tsx bench/addons.bench.ts [--rounds 3]
 */
import { performance } from 'node:perf_hooks';
import { ExtractiveReportGenerator } from '../core/adapters/extractive.report-generator.js';
import { FfmpegAudioDecoder } from '../core/adapters/ffmpeg.audio-decoder.js';
import { PocketsphinxTranscriber } from '../core/adapters/pocketsphinx.transcriber.js';
import { pcmSegment, segmentCount } from '../core/addons/audio-segments.js';
import { MEETING_LINES, librivox, spoken, wordErrorRate } from '../test/support/audio-fixtures.js';
import { median } from './support.js';

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;

const decoder = new FfmpegAudioDecoder({ ffmpegBinary: 'ffmpeg', ffprobeBinary: 'ffprobe', maxSeconds: 3600, timeoutMs: 120_000 });
const transcriber = new PocketsphinxTranscriber({ binary: 'pocketsphinx_continuous', modelDir: '/usr/share/pocketsphinx/model/en-us', timeoutMs: 120_000 });

/** Decodes and transcribes as a job does (30-s segments); returns the text and the seconds it took. */
async function transcribe(audio: Buffer): Promise<{ text: string; seconds: number; audioSeconds: number }> {
  const started = performance.now();
  const pcm = await decoder.decode(audio);
  const parts: string[] = [];
  for (let i = 0; i < segmentCount(pcm.length, 30); i++) parts.push(await transcriber.transcribe(pcmSegment(pcm, i, 30), 'en'));
  return { text: parts.join(' '), seconds: (performance.now() - started) / 1000, audioSeconds: pcm.length / 32_000 };
}

async function corpusFigures(name: string, items: { audio: Buffer; reference: string }[]) {
  const rtfs: number[] = [];
  let errors = 0;
  let words = 0;
  for (let round = 0; round < rounds; round++) {
    let seconds = 0;
    let audioSeconds = 0;
    errors = 0;
    words = 0;
    for (const item of items) {
      const r = await transcribe(item.audio);
      seconds += r.seconds;
      audioSeconds += r.audioSeconds;
      const refWords = item.reference.split(/\s+/).filter(Boolean).length;
      errors += wordErrorRate(item.reference, r.text) * refWords;
      words += refWords;
    }
    rtfs.push(seconds / audioSeconds);
  }
  console.log(`${name.padEnd(34)} WER ${(errors / words).toFixed(3)}   real-time factor ${median(rtfs).toFixed(3)} (median of ${rounds})`);
}

const SENTENCES = MEETING_LINES;

function transcriptOf(chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const line = `${SENTENCES[i % SENTENCES.length]!} (item ${i})`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

async function main() {
  console.log('Transcription: PocketSphinx (Debian pocketsphinx-en-us), 30-s segments, decode included');
  const readings = await librivox();
  await corpusFigures(`LibriVox, real speech (${readings.length} files)`, readings.map((r) => ({ audio: r.wav, reference: r.reference })));
  const synthetic = [
    'the meeting starts at nine in the morning',
    'we decided to ship the release on friday',
    'please send the report to the whole team before noon',
  ];
  await corpusFigures(`espeak-ng, synthetic (${synthetic.length} sentences)`, await Promise.all(synthetic.map(async (s) => ({ audio: await spoken(s), reference: s }))));

  console.log('\nReports: built-in extractive engine');
  const generator = new ExtractiveReportGenerator();
  for (const chars of [10_000, 100_000, 200_000]) {
    const transcript = transcriptOf(chars);
    const times: number[] = [];
    for (let round = 0; round < Math.max(rounds, 5); round++) {
      const started = performance.now();
      await generator.generate(transcript, 'en');
      times.push(performance.now() - started);
    }
    const ms = median(times);
    console.log(`${String(chars).padStart(7)} characters: ${ms.toFixed(1)} ms (${((ms * 10_000) / chars).toFixed(2)} ms per 10,000 characters, median of ${times.length})`);
  }
}

await main();
