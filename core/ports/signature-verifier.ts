/** Checks that a code host's secret-scanning report was signed by the host. */
export interface ReportSignatureVerifier {
  /** True when `signature` (base64) over `body` verifies with the host's public key `keyId`. */
  verify(body: Buffer, keyId: string, signature: string): Promise<boolean>;
}
