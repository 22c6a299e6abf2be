/**
 * Reading the JSON object a server answer must carry. A body that is not one (a proxy's HTML error page, a
 * truncated answer) is a one-line `UnexpectedBodyError` naming the status — never a parser stack trace.
 */
import { UnexpectedBodyError, nonJsonBodyMessage } from '../errors.js';
import type { TransportResponse } from './transport.js';

/** `text` (the body of `res`) as a JSON object. */
export function jsonObject<T extends object = Record<string, unknown>>(
  res: Pick<TransportResponse, 'status' | 'header'>,
  text: string,
): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UnexpectedBodyError(nonJsonBodyMessage(res.status, res.header('content-type')));
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UnexpectedBodyError(`server answered ${res.status} with JSON that is not an object`);
  }
  return parsed as T;
}

/** Reads the body of `res` as a JSON object. */
export async function readJsonObject<T extends object = Record<string, unknown>>(res: TransportResponse): Promise<T> {
  return jsonObject<T>(res, await res.text());
}
