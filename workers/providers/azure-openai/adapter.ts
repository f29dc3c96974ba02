import { invalidParameter } from '../../../src/domain/errors.ts';
import type { CallContext, ProviderAdapter } from '../contract.ts';

// Azure OpenAI (platform A): https://{resource}.openai.azure.com/openai, model operations under
// /deployments/{deployment}, every call with ?api-version=. Key as `api-key`, or an Entra ID
// token as `Authorization: Bearer`.

/** The GA data-plane version, used when the caller names none. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

// Operations Azure serves per deployment; the rest (files, batches, assistants, ...) sit at the root.
const DEPLOYMENT_PATHS = ['chat/completions', 'completions', 'embeddings', 'images/generations', 'images/edits', 'images/variations', 'audio/speech', 'audio/transcriptions', 'audio/translations'];

function deploymentScoped(path: string): boolean {
  const bare = path.split('?', 1)[0]!;
  return DEPLOYMENT_PATHS.includes(bare);
}

function withApiVersion(url: string, ctx: CallContext): string {
  if (/[?&]api-version=/.test(url)) return url;
  const version = ctx.credentials.azureApiVersion || DEFAULT_AZURE_API_VERSION;
  return `${url}${url.includes('?') ? '&' : '?'}api-version=${encodeURIComponent(version)}`;
}

export const azureOpenai: ProviderAdapter = {
  name: 'azure-openai',
  baseUrl: (ctx) => {
    const resource = ctx.credentials.azureResourceName;
    if (!resource) throw invalidParameter('x-gateway-azure-resource-name', 'azure-openai needs the resource name (x-gateway-azure-resource-name) or a custom host.');
    if (!/^[A-Za-z0-9-]+$/.test(resource)) throw invalidParameter('x-gateway-azure-resource-name', 'The Azure resource name may hold letters, digits and hyphens only.');
    return `https://${resource}.openai.azure.com/openai`;
  },
  authHeaders: (ctx): Record<string, string> => {
    const { apiKey, accessToken } = ctx.credentials;
    if (accessToken) return { authorization: `Bearer ${accessToken}` };
    return apiKey ? { 'api-key': apiKey } : {};
  },
  forwardedHeaders: ['openai-beta'],
  endpoints: {},
  passThroughUrl(path, ctx) {
    const base = ctx.customHost ?? azureOpenai.baseUrl(ctx);
    if (!deploymentScoped(path)) return withApiVersion(`${base}/${path}`, ctx);
    const deployment = ctx.credentials.azureDeploymentId || ctx.model;
    if (!deployment) throw invalidParameter('x-gateway-azure-deployment-id', 'azure-openai needs the deployment id (x-gateway-azure-deployment-id).');
    return withApiVersion(`${base}/deployments/${encodeURIComponent(deployment)}/${path}`, ctx);
  },
};
