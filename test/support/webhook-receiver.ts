import { once } from 'node:events';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A callback receiver on loopback, as a tenant would run one: it records what arrives and answers
 * with the statuses it is given in turn (then 200), or with a redirect.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  readonly answers: Array<number | { redirect: string }> = [];
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = this.answers.shift() ?? 200;
      if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(302, { location: answer.redirect }).end();
    });
  });

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/lore`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
