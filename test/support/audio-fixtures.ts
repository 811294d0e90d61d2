import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Real recorded English speech with its transcription: LibriVox readings from Debian's pocketsphinx-testdata. */
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

export type AudioFormat = 'wav' | 'mp3' | 'ogg' | 'flac' | 'm4a';

const ENCODERS: Record<AudioFormat, string[]> = {
  wav: [],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k'],
  ogg: ['-c:a', 'libopus', '-b:a', '32k'],
  flac: ['-c:a', 'flac'],
  m4a: ['-c:a', 'aac', '-b:a', '64k'],
};

let dir: Promise<string> | undefined;
const workDir = () => (dir ??= mkdtemp(path.join(tmpdir(), 'lore-audio-fixtures-')));

/** Converts a WAV file with Debian's ffmpeg. */
async function encode(wavFile: string, format: AudioFormat, name: string): Promise<Buffer> {
  if (format === 'wav') return readFile(wavFile);
  const out = path.join(await workDir(), `${name}.${format}`);
  await run('ffmpeg', ['-v', 'error', '-y', '-i', wavFile, ...ENCODERS[format], out]);
  return readFile(out);
}

/** Speech synthesised by espeak-ng (Debian), in the given format. */
export async function spoken(text: string, options: { voice?: string; format?: AudioFormat } = {}): Promise<Buffer> {
  const name = `speech-${Math.random().toString(36).slice(2)}`;
  const wav = path.join(await workDir(), `${name}.wav`);
  await run('espeak-ng', ['-v', options.voice ?? 'en-us', '-s', '150', '-w', wav, text]);
  return encode(wav, options.format ?? 'wav', name);
}

/** The LibriVox recordings with their reference transcriptions, in the package's order. */
export async function librivox(): Promise<{ id: string; wav: Buffer; reference: string }[]> {
  const transcription = await readFile(path.join(LIBRIVOX_DIR, 'transcription'), 'utf8');
  const references = new Map(
    transcription
      .split('\n')
      .map((line) => /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)\s*$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[2]!, m[1]!]),
  );
  const files = (await readdir(LIBRIVOX_DIR)).filter((f) => f.endsWith('.wav')).sort();
  return Promise.all(files.map(async (f) => ({ id: f.replace(/\.wav$/, ''), wav: await readFile(path.join(LIBRIVOX_DIR, f)), reference: references.get(f.replace(/\.wav$/, '')) ?? '' })));
}

/** Several recordings joined into one WAV (16 kHz mono), `times` times over: a longer real recording. */
export async function joinedLibrivox(times = 1): Promise<{ wav: Buffer; reference: string }> {
  const parts = await librivox();
  const list = path.join(await workDir(), `list-${Math.random().toString(36).slice(2)}.txt`);
  const { writeFile } = await import('node:fs/promises');
  const files = Array.from({ length: times }, () => parts.map((p) => `file '${path.join(LIBRIVOX_DIR, `${p.id}.wav`)}'`)).flat();
  await writeFile(list, files.join('\n'));
  const out = path.join(await workDir(), `joined-${Math.random().toString(36).slice(2)}.wav`);
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-ac', '1', '-ar', '16000', out]);
  return { wav: await readFile(out), reference: Array.from({ length: times }, () => parts.map((p) => p.reference)).flat().join(' ') };
}

/** Word error rate: word-level edit distance over the reference's length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = reference.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const hyp = hypothesis.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return ref.length ? previous[hyp.length]! / ref.length : 0;
}

/** Lines of a meeting transcript, as people speak them ("Name: ..."): the report tests' and bench's input. */
export const MEETING_LINES = [
  'Anna: Good morning everyone, this is the planning meeting for the spring release.',
  'Ben: The test suite is green and the documentation is nearly finished.',
  'Anna: We decided to ship the release on Friday the twelfth.',
  'Ben: I will update the changelog before Thursday.',
  'Carla: The translation of the release notes must be checked by the German team.',
  'Anna: The budget for the launch event was approved by the board.',
  'Dmitri: Customers asked for an export of their usage per sub-tenant in the portal.',
  'Carla: We should measure the latency of the query endpoint after the index change.',
] as const;
