// Shared by the control plane (what it hands workers for a managed provider) and the workers'
// provider adapters (workers/providers/contract.ts), so both name the fields alike.

/**
 * Who to call and as whom, already resolved from a managed provider (`@slug`), a config target,
 * or the request's headers (spec: Authentication; platform headers A, B, C).
 */
export interface ProviderCredentials {
  /** The provider key (the caller's `Authorization: Bearer`, converted by authHeaders). */
  apiKey?: string;
  /** Platform A (Azure OpenAI). */
  azureResourceName?: string;
  azureDeploymentId?: string;
  azureApiVersion?: string;
  azureModelName?: string;
  /** Platform C (Bedrock): SigV4 credentials. */
  awsAccessKeyId?: string;
  awsSecretAccessKey?: string;
  awsSessionToken?: string;
  awsRegion?: string;
  /** Platform B (Vertex AI). */
  vertexProjectId?: string;
  vertexRegion?: string;
  /** A Google service-account key file (JSON text) to exchange for an access token. */
  vertexServiceAccountJson?: string;
  /** Token endpoint for the exchange (default https://oauth2.googleapis.com/token); tests point it at the mock. */
  vertexTokenUrl?: string;
  /** An OAuth access token already held (Entra ID for Azure, Google for Vertex). */
  accessToken?: string;
}
