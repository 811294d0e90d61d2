import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { PortalConfig } from '../config.js';
import { redactEmail } from '../logger.js';
import type { MailMessage, Mailer } from '../ports/mailer.js';

/** Sends through an SMTP server (SMTP_URL). */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(message: MailMessage): Promise<{ location: string }> {
    const info = await this.transport.sendMail({ from: this.from, ...message });
    return { location: `smtp ${info.messageId}` };
  }
}

/**
 * Without SMTP (the embedded default): each message is built exactly as it would be sent, and
 * written to a folder as an .eml file a mail client opens, with its text part beside it as .txt,
 * named by its time and recipient; the log says when, with the address redacted.
 */
export class FolderMailer implements Mailer {
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    private readonly dir: string,
    private readonly from: string,
    private readonly log: Logger,
  ) {}

  async send(message: MailMessage): Promise<{ location: string }> {
    const info = await this.transport.sendMail({ from: this.from, ...message });
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const recipient = message.to.replace(/[^A-Za-z0-9@._-]/g, '_');
    const base = path.join(this.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${recipient}`);
    const file = `${base}.eml`;
    await writeFile(file, info.message as Buffer, { mode: 0o600 });
    // The text part as plain UTF-8 beside it: its links are whole there (the .eml wraps long lines).
    await writeFile(`${base}.txt`, `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n`, { mode: 0o600 });
    // The file's name holds the recipient's address, so the log names only the folder.
    this.log.info({ dir: this.dir, to: redactEmail(message.to), subject: message.subject }, 'e-mail written to the mail folder (SMTP_URL is not set)');
    return { location: file };
  }
}

export function createMailer(config: Pick<PortalConfig, 'mail'>, log: Logger): Mailer {
  const { mail } = config;
  return mail.kind === 'smtp' ? new SmtpMailer(mail.url, mail.from) : new FolderMailer(mail.dir, mail.from, log);
}
