// Price shapes shared by the catalogue, findPrice and costOf (issue 4 item 9, issue 8 accounting).

/**
 * A model's prices in USD per token, as exact decimal strings (see decimal.ts): `input` per prompt
 * token, `output` per completion token, `cached_input` per prompt token read from the provider's
 * prompt cache (null: the provider gives no discount, the input price applies), `cache_write` per
 * prompt token written to the cache where the provider charges for it (Anthropic), else null.
 */
export interface ModelPrice {
  input: string;
  output: string;
  cached_input: string | null;
  cache_write: string | null;
}

/** An operator-set price for a custom model (integration models, issue 4): per-token USD, string or number. */
export interface CustomModelPrice {
  provider: string;
  model: string;
  input: string | number;
  output: string | number;
  cached_input?: string | number | null;
  cache_write?: string | number | null;
}

export interface PriceMatch {
  provider: string;
  /** The catalogue (or custom) model id the request's model resolved to. */
  model: string;
  source: 'custom' | 'catalogue';
  /** How it matched: see findPrice. */
  rule: 'exact' | 'normalised' | 'dated_suffix' | 'prefix';
  price: ModelPrice;
}
