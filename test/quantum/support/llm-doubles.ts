/**
 * Loopback doubles of the two LLM APIs the extractor calls, speaking their real wire shapes: OpenAI
 * `POST /v1/chat/completions` (chat.completion objects, `{error: {...}}` failures) and Anthropic
 * `POST /v1/messages` (message objects, `{type: "error", error: {...}}` failures).
 */
import type { ServerResponse } from 'node:http';
import {
  sendJson,
  startHttpDouble,
  type HttpDouble,
  type RecordedRequest,
} from '../../support/upstreams/http-double.js';

export type Step = 'metadata' | 'pseudocode' | 'complexity' | 'primitives';

/** Which extraction step a prompt asks for (the prompts name it in their first line). */
export function stepOf(prompt: string): Step {
  const first = prompt.split('\n', 1)[0]!.toLowerCase();
  if (first.includes('metadata')) return 'metadata';
  if (first.includes('pseudocode')) return 'pseudocode';
  if (first.includes('complexity')) return 'complexity';
  if (first.includes('primitives')) return 'primitives';
  throw new Error(`unexpected prompt: ${first}`);
}

export interface LlmDoubleOptions {
  /** The JSON text answered per step. */
  readonly replies: Record<Step, string>;
  /** HTTP statuses answered before the real reply, in order (429, 500, …). */
  readonly failFirst?: number[];
}

export interface LlmDouble extends HttpDouble {
  /** The user prompts received, in order. */
  readonly prompts: string[];
}

interface OpenAIBody {
  model: string;
  messages: { role: string; content: string }[];
}

interface AnthropicBody {
  model: string;
  system?: string;
  messages: { role: string; content: string }[];
}

function failures(options: LlmDoubleOptions) {
  const queue = [...(options.failFirst ?? [])];
  return () => queue.shift();
}

export async function startOpenAIDouble(options: LlmDoubleOptions): Promise<LlmDouble> {
  const nextFailure = failures(options);
  const prompts: string[] = [];
  let calls = 0;
  const double = await startHttpDouble((req: RecordedRequest, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      sendJson(res, 404, {
        error: {
          message: `Unknown request URL: ${req.method} ${req.url}`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      });
      return;
    }
    const status = nextFailure();
    if (status !== undefined) {
      sendJson(res, status, {
        error: {
          message: status === 429 ? 'Rate limit reached' : 'The server had an error',
          type: status === 429 ? 'requests' : 'server_error',
          param: null,
          code: null,
        },
      });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as OpenAIBody;
    const prompt = body.messages.find((m) => m.role === 'user')!.content;
    prompts.push(prompt);
    calls++;
    sendJson(res, 200, {
      id: `chatcmpl-${calls}`,
      object: 'chat.completion',
      created: 1_767_225_600,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: options.replies[stepOf(prompt)], refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 100 + calls, completion_tokens: 10 * calls, total_tokens: 100 + calls + 10 * calls },
      system_fingerprint: 'fp_double',
    });
  });
  return Object.assign(double, { prompts });
}

export async function startAnthropicDouble(options: LlmDoubleOptions): Promise<LlmDouble> {
  const nextFailure = failures(options);
  const prompts: string[] = [];
  let calls = 0;
  const double = await startHttpDouble((req: RecordedRequest, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
      return;
    }
    const status = nextFailure();
    if (status !== undefined) {
      sendJson(res, status, {
        type: 'error',
        error: {
          type: status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error',
          message: 'try again',
        },
      });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as AnthropicBody;
    const prompt = body.messages.find((m) => m.role === 'user')!.content;
    prompts.push(prompt);
    calls++;
    sendJson(res, 200, {
      id: `msg_${calls}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: options.replies[stepOf(prompt)] }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 200 + calls, output_tokens: 20 * calls },
    });
  });
  return Object.assign(double, { prompts });
}
