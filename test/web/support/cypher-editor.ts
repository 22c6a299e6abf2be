import type { Page } from 'playwright-core';

/** Replaces the graph explorer's query text by typing, as a person would; the completion list stays open. */
export async function retypeQuery(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Cypher query' }).click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
}

/** `retypeQuery`, then the completion list closed, so Enter and the shortcut reach the editor's commands. */
export async function typeQuery(page: Page, text: string): Promise<void> {
  await retypeQuery(page, text);
  await page.keyboard.press('Escape');
}
