// Which price applies to a (provider, model) pair (issue 4 item 9; used by the data plane's
// accounting, issue 8, and the public price sheet). Pure.
import { PRICING_CATALOGUE, PROVIDER_ALIASES } from './catalogue.ts';
import { attoToDecimal, toAtto } from './decimal.ts';
import type { CustomModelPrice, ModelPrice, PriceMatch } from './types.ts';

const norm = (s: string): string => s.trim().toLowerCase();

export function canonicalProvider(provider: string): string {
  const p = norm(provider);
  return PROVIDER_ALIASES[p] ?? p;
}

/** Bedrock cross-region inference profiles prefix the model id with a geography. */
const BEDROCK_REGION = /^(us|eu|apac|au|ca|jp|us-gov|global)\./;

/**
 * Spellings of the same model: a `provider/` prefix some clients add (`openai/gpt-4o`, but only when
 * the id minus the prefix is what is looked up: Groq's own ids contain slashes), Vertex's
 * `@YYYYMMDD` version, Bedrock region prefixes.
 */
function normalisedIds(provider: string, model: string): string[] {
  const out: string[] = [];
  const slash = model.indexOf('/');
  if (slash > 0) out.push(model.slice(slash + 1));
  if (model.includes('@')) out.push(model.slice(0, model.indexOf('@')));
  if (provider === 'bedrock' && BEDROCK_REGION.test(model)) out.push(model.replace(BEDROCK_REGION, ''));
  return out;
}

/** Dated or moving-alias suffixes: `-2024-08-06`, `-20241022`, `-08-2024`, `-0613`, `-latest`, `-preview`, `-vN[:M]`. */
const SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|\d{2}-\d{4}|\d{4}|latest|preview(-[\w-]+)?|v\d+(:\d+)?)$/;

function stripSuffixes(model: string): string {
  let m = model;
  for (let prev = ''; prev !== m; ) {
    prev = m;
    m = m.replace(SUFFIX, '');
  }
  return m;
}

/** The longest catalogue id that `model` starts with, followed by `-`, `:` or `@` (a variant or version of it). */
function longestPrefix(table: Readonly<Record<string, ModelPrice>>, model: string): string | null {
  let best: string | null = null;
  for (const id of Object.keys(table)) {
    if (model.startsWith(id) && /^[-:@]/.test(model.slice(id.length)) && (!best || id.length > best.length)) best = id;
  }
  return best;
}

function customPrice(c: CustomModelPrice): ModelPrice {
  const s = (v: string | number | null | undefined): string | null => (v === null || v === undefined ? null : attoToDecimal(toAtto(v)));
  return { input: s(c.input)!, output: s(c.output)!, cached_input: s(c.cached_input), cache_write: s(c.cache_write) };
}

/**
 * The price of `model` at `provider`, or null when unknown. Order:
 *  1. an operator's custom price for exactly this provider and model (case-insensitive);
 *  2. the catalogue, exact id;
 *  3. the catalogue, a normalised id (see normalisedIds);
 *  4. the catalogue, the id without dated / `-latest` / `-preview` / `-vN:M` suffixes
 *     (`gpt-4o-2024-08-06` → `gpt-4o`, `claude-3-5-sonnet-20241022` → `claude-3-5-sonnet`);
 *  5. the catalogue, the longest id the model starts with followed by `-`, `:` or `@`
 *     (`gpt-4o-mini-search` → `gpt-4o-mini`, `anthropic.claude-sonnet-4-20250514-v1:0` →
 *     `anthropic.claude-sonnet-4`). A model named by the catalogue never falls to a shorter id.
 */
export function findPrice(provider: string, model: string, customPrices: readonly CustomModelPrice[] = []): PriceMatch | null {
  const p = canonicalProvider(provider);
  const m = norm(model);
  const custom = customPrices.find((c) => canonicalProvider(c.provider) === p && norm(c.model) === m);
  if (custom) return { provider: p, model: custom.model, source: 'custom', rule: 'exact', price: customPrice(custom) };

  const table = PRICING_CATALOGUE[p];
  if (!table) return null;
  const hit = (id: string, rule: PriceMatch['rule']): PriceMatch | null =>
    Object.hasOwn(table, id) ? { provider: p, model: id, source: 'catalogue', rule, price: table[id]! } : null;

  const exact = hit(m, 'exact');
  if (exact) return exact;
  const candidates = [m, ...normalisedIds(p, m)];
  for (const id of candidates.slice(1)) {
    const found = hit(id, 'normalised');
    if (found) return found;
  }
  for (const id of candidates) {
    const stripped = stripSuffixes(id);
    if (stripped !== id) {
      const found = hit(stripped, 'dated_suffix');
      if (found) return found;
    }
  }
  for (const id of candidates) {
    const prefix = longestPrefix(table, id);
    if (prefix) return hit(prefix, 'prefix');
  }
  return null;
}
