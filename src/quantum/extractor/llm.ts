/**
 * The two LLM wire protocols the extractor speaks (CONTRACT §17.7): OpenAI chat completions with JSON mode and
 * Anthropic messages. 429 and 5xx answers (and transport failures) are retried up to 3 times after 1, 2 and 4 s.
 */
import { UpstreamError } from '../../shared/domain-errors.js';

export const LLM_PROVIDERS = ['openai', 'anthropic'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export const DEFAULT_MODELS: Readonly<Record<LlmProvider, string>> = {
  openai: 'gpt-4o',
  anthropic: 'claude-3-5-sonnet-latest',
};

export const DEFAULT_BASE_URLS: Readonly<Record<LlmProvider, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_MAX_TOKENS = 4096;
export const RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000];
const REQUEST_TIMEOUT_MS = 120_000;

export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

export interface LlmReply {
  text: string;
  usage: TokenUsage;
}

export interface LlmClientOptions {
  readonly provider: LlmProvider;
  readonly apiKey: string;
  readonly model: string;
  readonly baseUrl: string;
  /** Waits between retries; tests pass a recorder instead of real sleeps. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly fetch?: typeof fetch;
}

export interface LlmClient {
  complete(system: string, user: string): Promise<LlmReply>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

function openaiRequest(o: LlmClientOptions, system: string, user: string): WireRequest {
  return {
    url: `${trimSlash(o.baseUrl)}/chat/completions`,
    headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json' },
    body: {
      model: o.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    },
  };
}

function anthropicRequest(o: LlmClientOptions, system: string, user: string): WireRequest {
  return {
    url: `${trimSlash(o.baseUrl)}/v1/messages`,
    headers: { 'x-api-key': o.apiKey, 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json' },
    body: {
      model: o.model,
      max_tokens: ANTHROPIC_MAX_TOKENS,
      system: `${system} Respond with valid JSON only.`,
      messages: [{ role: 'user', content: user }],
      temperature: 0,
    },
  };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function openaiReply(body: unknown): LlmReply {
  const b = body as { choices?: { message?: { content?: unknown } }[]; usage?: Record<string, unknown> };
  const text = b.choices?.[0]?.message?.content;
  if (typeof text !== 'string') throw new UpstreamError('llm', 'OpenAI reply has no choices[0].message.content');
  const u = b.usage ?? {};
  const prompt = num(u.prompt_tokens);
  const completion = num(u.completion_tokens);
  return { text, usage: { prompt, completion, total: num(u.total_tokens) || prompt + completion } };
}

function anthropicReply(body: unknown): LlmReply {
  const b = body as { content?: { type?: string; text?: unknown }[]; usage?: Record<string, unknown> };
  const parts = (b.content ?? []).filter((c) => c.type === 'text' && typeof c.text === 'string');
  if (parts.length === 0) throw new UpstreamError('llm', 'Anthropic reply has no text content');
  const u = b.usage ?? {};
  const prompt = num(u.input_tokens);
  const completion = num(u.output_tokens);
  return {
    text: parts.map((p) => p.text as string).join(''),
    usage: { prompt, completion, total: prompt + completion },
  };
}

const retryable = (status: number): boolean => status === 429 || status >= 500;

export function createLlmClient(options: LlmClientOptions): LlmClient {
  const sleep = options.sleep ?? realSleep;
  const doFetch = options.fetch ?? fetch;
  const name = options.provider === 'openai' ? 'OpenAI' : 'Anthropic';
  return {
    async complete(system: string, user: string): Promise<LlmReply> {
      const req =
        options.provider === 'openai' ? openaiRequest(options, system, user) : anthropicRequest(options, system, user);
      for (let attempt = 0; ; attempt++) {
        let failure: string;
        try {
          const res = await doFetch(req.url, {
            method: 'POST',
            headers: req.headers,
            body: JSON.stringify(req.body),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const text = await res.text();
          if (res.ok) {
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              throw new UpstreamError('llm', `${name} answered HTTP ${res.status} with a body that is not JSON`);
            }
            return options.provider === 'openai' ? openaiReply(body) : anthropicReply(body);
          }
          failure = `${name} answered HTTP ${res.status}: ${text.slice(0, 500)}`;
          if (!retryable(res.status)) throw new UpstreamError('llm', failure);
        } catch (err) {
          if (err instanceof UpstreamError) throw err;
          failure = `${name} request failed: ${(err as Error).message}`;
        }
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) throw new UpstreamError('llm', failure);
        await sleep(delay);
      }
    },
  };
}
