// The pricing catalogue shipped as data (issue 4 item 9; gateway-spec "What the service does" 6).
//
// Basis: the providers' public list prices for standard (on-demand, non-batch) usage as published
// around mid-2025 — OpenAI, Anthropic, Google Gemini API (≤200k-token prompt tier), Mistral, Cohere,
// Groq, DeepSeek (standard, non-discount hours) price pages, and AWS Bedrock on-demand prices in
// us-east-1; Azure OpenAI global deployments are listed at OpenAI's prices. Prices change: operators
// override them with custom prices (integration models), which findPrice checks first.
//
// Rows are written in USD per million tokens (how providers publish them, exact in decimal) and
// turned into per-token decimal strings by an exact decimal shift (decimal.ts), never by float division.
import { attoToDecimal, perMillionToAtto } from './decimal.ts';
import type { ModelPrice } from './types.ts';

/** USD per 1M tokens: input, output, cached input (null: no discount), cache write (null: not charged). */
type Row = readonly [input: number, output: number, cachedInput?: number | null, cacheWrite?: number | null];

const perToken = (perMillion: number): string => attoToDecimal(perMillionToAtto(perMillion));

function table(rows: Record<string, Row>): Record<string, ModelPrice> {
  return Object.fromEntries(
    Object.entries(rows).map(([model, [i, o, c, w]]) => [
      model,
      Object.freeze({ input: perToken(i), output: perToken(o), cached_input: c == null ? null : perToken(c), cache_write: w == null ? null : perToken(w) }),
    ]),
  );
}

const OPENAI = table({
  'gpt-5': [1.25, 10, 0.125],
  'gpt-5-mini': [0.25, 2, 0.025],
  'gpt-5-nano': [0.05, 0.4, 0.005],
  'gpt-4.1': [2, 8, 0.5],
  'gpt-4.1-mini': [0.4, 1.6, 0.1],
  'gpt-4.1-nano': [0.1, 0.4, 0.025],
  'gpt-4o': [2.5, 10, 1.25],
  'gpt-4o-mini': [0.15, 0.6, 0.075],
  'gpt-4-turbo': [10, 30],
  'gpt-4': [30, 60],
  'gpt-3.5-turbo': [0.5, 1.5],
  o1: [15, 60, 7.5],
  'o1-mini': [1.1, 4.4, 0.55],
  o3: [2, 8, 0.5],
  'o3-mini': [1.1, 4.4, 0.55],
  'o4-mini': [1.1, 4.4, 0.275],
  'text-embedding-3-small': [0.02, 0],
  'text-embedding-3-large': [0.13, 0],
  'text-embedding-ada-002': [0.1, 0],
});

/** Cache write = the 5-minute cache write price (1.25 × input). */
const ANTHROPIC = table({
  'claude-opus-4-1': [15, 75, 1.5, 18.75],
  'claude-opus-4': [15, 75, 1.5, 18.75],
  'claude-sonnet-4-5': [3, 15, 0.3, 3.75],
  'claude-sonnet-4': [3, 15, 0.3, 3.75],
  'claude-haiku-4-5': [1, 5, 0.1, 1.25],
  'claude-3-7-sonnet': [3, 15, 0.3, 3.75],
  'claude-3-5-sonnet': [3, 15, 0.3, 3.75],
  'claude-3-5-haiku': [0.8, 4, 0.08, 1],
  'claude-3-opus': [15, 75, 1.5, 18.75],
  'claude-3-haiku': [0.25, 1.25, 0.03, 0.3],
});

const GOOGLE = table({
  'gemini-2.5-pro': [1.25, 10, 0.31],
  'gemini-2.5-flash': [0.3, 2.5, 0.075],
  'gemini-2.5-flash-lite': [0.1, 0.4, 0.025],
  'gemini-2.0-flash': [0.1, 0.4, 0.025],
  'gemini-2.0-flash-lite': [0.075, 0.3],
  'gemini-1.5-pro': [1.25, 5, 0.3125],
  'gemini-1.5-flash': [0.075, 0.3, 0.01875],
  'text-embedding-004': [0, 0],
});

const MISTRAL = table({
  'mistral-large': [2, 6],
  'mistral-medium': [0.4, 2],
  'mistral-small': [0.1, 0.3],
  codestral: [0.3, 0.9],
  'pixtral-large': [2, 6],
  'ministral-8b': [0.1, 0.1],
  'ministral-3b': [0.04, 0.04],
  'open-mistral-nemo': [0.15, 0.15],
  'mistral-embed': [0.1, 0],
});

const COHERE = table({
  'command-a': [2.5, 10],
  'command-r-plus': [2.5, 10],
  'command-r': [0.15, 0.6],
  'command-r7b': [0.0375, 0.15],
  'embed-v4.0': [0.12, 0],
  'embed-english-v3.0': [0.1, 0],
  'embed-multilingual-v3.0': [0.1, 0],
});

const GROQ = table({
  'llama-3.3-70b-versatile': [0.59, 0.79],
  'llama-3.1-8b-instant': [0.05, 0.08],
  'meta-llama/llama-4-scout-17b-16e-instruct': [0.11, 0.34],
  'meta-llama/llama-4-maverick-17b-128e-instruct': [0.2, 0.6],
  'openai/gpt-oss-120b': [0.15, 0.75],
  'openai/gpt-oss-20b': [0.1, 0.5],
  'qwen/qwen3-32b': [0.29, 0.59],
  'deepseek-r1-distill-llama-70b': [0.75, 0.99],
  'gemma2-9b-it': [0.2, 0.2],
});

const DEEPSEEK = table({
  'deepseek-chat': [0.27, 1.1, 0.07],
  'deepseek-reasoner': [0.55, 2.19, 0.14],
});

/** Bedrock model ids without their `-vN:M` / date suffix (findPrice's prefix rule reaches them). */
const BEDROCK = table({
  'anthropic.claude-opus-4-1': [15, 75, 1.5, 18.75],
  'anthropic.claude-opus-4': [15, 75, 1.5, 18.75],
  'anthropic.claude-sonnet-4-5': [3, 15, 0.3, 3.75],
  'anthropic.claude-sonnet-4': [3, 15, 0.3, 3.75],
  'anthropic.claude-3-7-sonnet': [3, 15, 0.3, 3.75],
  'anthropic.claude-3-5-sonnet': [3, 15],
  'anthropic.claude-3-5-haiku': [0.8, 4, 0.08, 1],
  'anthropic.claude-3-haiku': [0.25, 1.25],
  'amazon.nova-pro': [0.8, 3.2, 0.2],
  'amazon.nova-lite': [0.06, 0.24, 0.015],
  'amazon.nova-micro': [0.035, 0.14, 0.00875],
  'meta.llama3-1-70b-instruct': [0.72, 0.72],
  'meta.llama3-1-8b-instruct': [0.22, 0.22],
  'meta.llama3-3-70b-instruct': [0.72, 0.72],
  'mistral.mistral-large-2402': [4, 12],
  'cohere.command-r-plus': [3, 15],
  'cohere.command-r': [0.5, 1.5],
  'amazon.titan-embed-text-v2': [0.02, 0],
});

/** Provider slug → model id → price. Aliases share the same tables. */
export const PRICING_CATALOGUE: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>> = Object.freeze({
  openai: OPENAI,
  'azure-openai': OPENAI,
  anthropic: ANTHROPIC,
  google: GOOGLE,
  // Vertex AI serves Gemini and Anthropic models (Anthropic ids as `claude-…@YYYYMMDD`).
  'vertex-ai': { ...GOOGLE, ...ANTHROPIC },
  'mistral-ai': MISTRAL,
  cohere: COHERE,
  groq: GROQ,
  deepseek: DEEPSEEK,
  bedrock: BEDROCK,
});

/** Other spellings of provider slugs callers use. */
export const PROVIDER_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  mistral: 'mistral-ai',
  mistralai: 'mistral-ai',
  azure: 'azure-openai',
  gemini: 'google',
  vertex: 'vertex-ai',
  'aws-bedrock': 'bedrock',
});
