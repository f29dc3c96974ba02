// Managed providers, as the worker gets them from the control plane. Beside the adapter
// contract (not in workers/contracts.ts) because it carries ProviderCredentials, and the
// contract already depends on workers/contracts.ts.
import type { ProviderCredentials } from './contract.ts';

/** A managed provider (`@slug`, or the legacy virtual key) as the control plane holds it. */
export interface ResolvedProvider {
  /** The adapter id (`openai`, `azure-openai`, `bedrock`, ...). */
  provider: string;
  credentials: ProviderCredentials;
  /** The provider's custom host, if it has one; SSRF-checked like a header's. */
  customHost?: string;
  /** Headers the operator set on the integration, sent with every call. */
  customHeaders?: Record<string, string>;
}

/**
 * Managed providers by slug (spec: Authentication 2, first combination). The lead backs it with
 * the gRPC Resolve call; null when the workspace has no such provider. Rejects with
 * ControlPlaneUnavailable (workers/contracts.ts) when the control plane cannot answer.
 */
export interface ProviderDirectory {
  resolveProvider(workspaceId: string, slug: string): Promise<ResolvedProvider | null>;
}
