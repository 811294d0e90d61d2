import { createPublicKey, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ReportSignatureVerifier } from '../ports/signature-verifier.js';

/** The format GitHub publishes its secret-scanning keys in (`/meta/public_keys/secret_scanning`). */
const publicKeysSchema = z.object({
  public_keys: z.array(z.object({ key_identifier: z.string().min(1), key: z.string().min(1), is_current: z.boolean().optional() })),
});

const CACHE_MS = 60 * 60_000;
/** An unknown key id refetches the list, at most this often (a rotated key shows up; a flood of bad ids does not). */
const REFETCH_MS = 60_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * Verifies the ECDSA (SHA-256) signatures of GitHub's secret-scanning partner program: headers
 * `Github-Public-Key-Identifier` and `Github-Public-Key-Signature` (base64 DER) over the raw body,
 * against the public keys GitHub publishes, fetched and cached, or read from a file for offline use.
 */
export class GitHubSignatureVerifier implements ReportSignatureVerifier {
  private keys = new Map<string, ReturnType<typeof createPublicKey>>();
  private fetchedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly source: { url: string; file: string | undefined },
    private readonly refetchMs = REFETCH_MS,
  ) {}

  private async load(): Promise<void> {
    const text = this.source.file
      ? await readFile(this.source.file, 'utf8')
      : await fetch(this.source.url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).then((res) => {
          if (!res.ok) throw new Error(`${this.source.url} answered ${res.status}`);
          return res.text();
        });
    const parsed = publicKeysSchema.parse(JSON.parse(text));
    this.keys = new Map(parsed.public_keys.map((k) => [k.key_identifier, createPublicKey(k.key)]));
    this.fetchedAt = Date.now();
  }

  private async refresh(force: boolean): Promise<void> {
    const age = Date.now() - this.fetchedAt;
    if (this.fetchedAt && (force ? age < this.refetchMs : age < CACHE_MS)) return;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    await this.loading;
  }

  async verify(body: Buffer, keyId: string, signature: string): Promise<boolean> {
    await this.refresh(false);
    if (!this.keys.has(keyId)) await this.refresh(true);
    const key = this.keys.get(keyId);
    if (!key || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
    try {
      return verify('sha256', body, key, Buffer.from(signature, 'base64'));
    } catch {
      return false;
    }
  }
}
