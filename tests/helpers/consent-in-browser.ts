import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { CallbackServer } from './oauth-provider.js';

/** The person at the browser an MCP client opened, and how they link upstream credentials. */
export interface PersonAtBrowser {
  page: Page;
  callback: CallbackServer;
  email: string;
  password: string;
  /** Fills in the credentials page (the sandbox button, or a token and user id). */
  linkCredentials: (page: Page) => Promise<void>;
}

/**
 * What a person does in the browser the client opened (an `onRedirect` for MemoryOAuthProvider): sign in
 * if asked, link credentials if asked, Allow unless a remembered consent sends the browser straight back
 * to the app; resolves when the app's callback has been reached.
 */
export async function completeInBrowser(person: PersonAtBrowser, url: URL): Promise<void> {
  const { page, callback } = person;
  const arrived = callback.next();
  await page.goto(url.href);
  if (new URL(page.url()).pathname === '/sign-in') {
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  }
  if (new URL(page.url()).pathname === '/account/credentials') {
    await person.linkCredentials(page);
    await page.waitForLoadState();
  }
  if (new URL(page.url()).port !== String(callback.port)) {
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Allow');
    await page.getByRole('button', { name: 'Allow' }).click();
  }
  await arrived;
}
