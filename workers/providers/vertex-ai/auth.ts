// Vertex AI auth (platform B): an access token already held (credentials.accessToken, or the
// caller's Bearer key, which the reference gateway also treats as a Google token), else a
// service-account key exchanged for one at credentials.vertexTokenUrl.
import { AppError } from '../../../src/domain/errors.ts';
import type { CallContext } from '../contract.ts';
import { DEFAULT_TOKEN_URL, parseServiceAccount, tokenCache } from './service-account.ts';

export async function vertexAuthHeaders(ctx: CallContext): Promise<Record<string, string>> {
  const { accessToken, apiKey, vertexServiceAccountJson, vertexTokenUrl } = ctx.credentials;
  if (accessToken) return { authorization: `Bearer ${accessToken}` };
  if (vertexServiceAccountJson) {
    const account = parseServiceAccount(vertexServiceAccountJson);
    const token = await tokenCache.token(account, vertexTokenUrl ?? DEFAULT_TOKEN_URL, ctx.upstream, () => ctx.now());
    return { authorization: `Bearer ${token}` };
  }
  if (apiKey) return { authorization: `Bearer ${apiKey}` };
  throw new AppError(400, 'invalid_request_error', 'missing_provider_credentials', 'Vertex AI needs an access token or a service account key (vertex_service_account_json).');
}
