/** One e-mail with a plain-text and an HTML part. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends Lore's e-mails (portal links, leaked-key notices): over SMTP, or into a folder. */
export interface Mailer {
  /** Sends a message; answers where it went (the SMTP server's message id, or the file written). */
  send(message: MailMessage): Promise<{ location: string }>;
}
