/** One provider's adapter (one folder each under workers/providers). */
export interface ProviderAdapter {
  name: string;
  defaultBaseUrl: string;
  /** The provider's own form of the caller's `Authorization: Bearer <PROVIDER_KEY>`. */
  authHeaders(providerKey: string): Record<string, string>;
  /** Headers of the caller's request that this provider understands and may receive. */
  forwardedHeaders: readonly string[];
}
