import { type Browser, chromium } from 'playwright-core';
import type { Database } from '../../core/db/database.js';
import { type TestApp, startTestApp } from './app.js';
import { startSmtpServer } from './smtp.js';

/** Debian's Chromium (.ci/run installs it); nothing downloads a browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}

export interface PortalInChromium {
  app: TestApp;
  /** Where the app's e-mail goes (invitations, resets). */
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  browser: Browser;
  /** The app's address on localhost, not 127.0.0.1: browsers keep Secure cookies over plain http on localhost. */
  base: string;
  close: () => Promise<void>;
}

/** A test app sending its e-mail to an SMTP server of the test's, and Chromium: what the portal's browser suites start with. */
export async function startPortalInChromium(db: Database): Promise<PortalInChromium> {
  const smtp = await startSmtpServer();
  const app = await startTestApp(db, { env: { SMTP_URL: smtp.url } });
  const browser = await launchChromium();
  return {
    app,
    smtp,
    browser,
    base: app.url.replace('127.0.0.1', 'localhost'),
    close: async () => {
      await browser.close();
      await app.close();
      await smtp.close();
    },
  };
}
