import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

/**
 * Renders charts/lore/ with the test renderer in helm-template/main.go (Go's text/template and sprig,
 * as Helm's engine uses them; it is not Helm), and checks the coalesced values against
 * values.schema.json first, as Helm does before rendering.
 */

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('./helm-template/main.go', import.meta.url));
export const CHART_DIR = path.resolve(import.meta.dirname, '../../charts/lore');

// A cluster with the Prometheus Operator: its kinds are in the chart's optional monitoring.
const DEFAULT_API_VERSIONS = ['monitoring.coreos.com/v1'];

export type Values = Record<string, unknown>;

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [field: string]: any };
  [field: string]: any;
}

export interface Rendered {
  /** Each document with the template it came from (`lore/templates/…`) and its text. */
  manifests: Array<{ source: string; manifest: Manifest; text: string }>;
  /** The one manifest of that kind and name; throws when there is none. */
  get(kind: string, name: string): Manifest;
  ofKind(kind: string): Manifest[];
}

export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
  apiVersions?: string[];
  includeCrds?: boolean;
}

/** Rendering failed, as `helm template` would: a values schema violation or a template error. */
export class HelmError extends Error {}

/** Builds the renderer once per version of main.go (cached under the OS's temp directory); returns its path. */
export async function buildRenderer(): Promise<string> {
  const hash = createHash('sha256').update(await readFile(SOURCE)).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), 'lore-helm-template');
  const binary = path.join(dir, `helm-template-${hash}`);
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  try {
    // GOPATH mode over Debian's Go packages (golang-github-masterminds-sprig-dev, golang-k8s-sigs-yaml-dev): no module download.
    await run('go', ['build', '-o', partial, SOURCE], {
      env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: path.join(dir, 'go-build'), GOFLAGS: '' },
    });
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr ?? (err as Error).message;
    throw new Error(`building ${SOURCE} failed (apt-get install golang-go golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev, as .ci/run does): ${detail}`, { cause: err });
  }
  // A rename is atomic: a concurrent run never executes a half-written binary.
  await rename(partial, binary);
  return binary;
}

let valuesSchema: ValidateFunction | undefined;

/** values.schema.json, compiled with Ajv (draft-07). */
export async function valuesValidator(): Promise<ValidateFunction> {
  valuesSchema ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(JSON.parse(await readFile(path.join(CHART_DIR, 'values.schema.json'), 'utf8')) as object);
  return valuesSchema;
}

async function renderer(binary: string, values: Values[], options: RenderOptions, flags: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lore-helm-values-'));
  try {
    const args = [`-name=${options.releaseName ?? 'lore'}`, `-namespace=${options.namespace ?? 'lore'}`];
    for (const [i, override] of values.entries()) {
      const file = path.join(dir, `values-${i}.yaml`);
      // JSON is YAML: the renderer reads it as Helm reads a -f file.
      await writeFile(file, JSON.stringify(override));
      args.push('-f', file);
    }
    for (const version of options.apiVersions ?? DEFAULT_API_VERSIONS) args.push(`-api-versions=${version}`);
    const exec = (extra: string[]) =>
      run(binary, [...args, ...extra, CHART_DIR], { maxBuffer: 64 * 1024 * 1024 }).then(
        ({ stdout }) => stdout,
        (err: Error & { stderr?: string }) => {
          throw new HelmError((err.stderr || err.message).trim(), { cause: err });
        },
      );
    const validate = await valuesValidator();
    const coalesced = JSON.parse(await exec(['-show-values'])) as Values;
    if (!validate(coalesced)) {
      const problems = (validate.errors ?? []).map((e) => `- ${e.instancePath || '/'}: ${e.message ?? ''}`).join('\n');
      throw new HelmError(`values don't meet the specifications of the schema(s) in the following chart(s):\nlore:\n${problems}`);
    }
    return await exec(flags);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `helm template` with these value files (objects, coalesced in order over values.yaml). */
export async function helmTemplate(binary: string, values: Values[] = [], options: RenderOptions = {}): Promise<Rendered> {
  const output = await renderer(binary, values, options, options.includeCrds ? ['-include-crds'] : []);
  // Every document starts "---\n# Source: <template>\n", as helm template prints them.
  const manifests = output
    .split(/^---\n/m)
    .filter((doc) => doc.trim())
    .map((doc) => {
      const source = /^# Source: (\S+)\n/.exec(doc)?.[1];
      const manifest = parse(doc) as Manifest | null;
      if (!source || !manifest) throw new Error(`a rendered document without a source or content:\n${doc}`);
      return { source, manifest, text: doc };
    });
  const ofKind = (kind: string) => manifests.map((m) => m.manifest).filter((m) => m.kind === kind);
  return {
    manifests,
    ofKind,
    get(kind, name) {
      const found = ofKind(kind).filter((m) => m.metadata.name === name);
      if (found.length !== 1) throw new Error(`${found.length} ${kind} named ${name} rendered`);
      return found[0]!;
    },
  };
}

/** The rendered templates/NOTES.txt. */
export async function helmNotes(binary: string, values: Values[] = [], options: RenderOptions = {}): Promise<string> {
  return renderer(binary, values, options, ['-notes']);
}
