import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it, its quoted-printable text decoded. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The decoded message (headers and parts), for finding links and words. */
  text: string;
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * A real SMTP server on loopback (the `smtp-server` package): Lore's SMTP mailer talks to it as to
 * any mail server; the test reads what arrived. Recipients `refuse` picks are refused, quoted in the
 * answer as real servers do.
 */
export async function startSmtpServer(options: { refuse?: (address: string) => boolean } = {}): Promise<{ url: string; mails: ReceivedMail[]; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.refuse?.(address.address)) callback(Object.assign(new Error(`<${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: decodeQuotedPrintable(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The portal link (path and query) in a mail. */
export function portalLink(mail: ReceivedMail): string {
  const match = /https?:\/\/[^\s"<>]+(\/portal\/password\?token=[A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match) throw new Error(`no portal link in:\n${mail.text}`);
  return match[1]!;
}
