/** The shapes of tool results (CONTRACT §20): JSON answers as text, failures as `isError` with the server's detail. */
import type { ApiReply } from './caller.js';
import { replyDetail, replyJson } from './caller.js';

export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}
export interface ImageContent {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

export interface ToolResult {
  readonly content: (TextContent | ImageContent)[];
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

export const text = (value: string): TextContent => ({ type: 'text', text: value });

/** A JSON answer as one text item (compact: an agent's context is the scarce resource). */
export const jsonResult = (body: unknown): ToolResult => ({ content: [text(JSON.stringify(body))] });

export const errorResult = (message: string, ...more: TextContent[]): ToolResult => ({
  content: [text(message), ...more],
  isError: true,
});

/** A refused or failed request: the server's detail, and the body when it carries more (a job snapshot). */
export function replyError(reply: ApiReply): ToolResult {
  const body = replyJson(reply);
  const detail = replyDetail(reply);
  const extra =
    body !== null && typeof body === 'object' && Object.keys(body).some((k) => k !== 'detail')
      ? [text(JSON.stringify(body))]
      : [];
  return errorResult(detail, ...extra);
}
