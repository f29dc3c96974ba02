// SigV4 for Bedrock runtime (service `bedrock`): the signature covers the body, so the call is
// signed where it is built, in request(). A custom host replaces the URL's host and is signed
// the same way (service and region are given, never guessed from the host).
import { AwsV4Signer } from 'aws4fetch';
import { AppError } from '../../../src/domain/errors.ts';
import type { CallContext, UpstreamCall } from '../contract.ts';

export const DEFAULT_REGION = 'us-east-1';

export const bedrockRegion = (ctx: CallContext): string => ctx.credentials.awsRegion || DEFAULT_REGION;

export const bedrockBaseUrl = (ctx: CallContext): string => `https://bedrock-runtime.${bedrockRegion(ctx)}.amazonaws.com`;

/** `/model/{modelId}/{action}`: ids hold `:` (and ARNs `/`), so the id is one encoded segment. */
export const modelUrl = (ctx: CallContext, action: string): string =>
  `${ctx.customHost ?? bedrockBaseUrl(ctx)}/model/${encodeURIComponent(ctx.model)}/${action}`;

/** x-amz-date form of the call's clock: YYYYMMDDTHHMMSSZ. */
const amzDate = (ms: number): string => new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, '');

/** The SigV4 headers (authorization, x-amz-date, x-amz-security-token) for a request. */
async function sigV4Headers(ctx: CallContext, method: string, url: string, headers: Record<string, string>, body: string | Uint8Array | null): Promise<Record<string, string>> {
  const { awsAccessKeyId, awsSecretAccessKey, awsSessionToken } = ctx.credentials;
  if (!awsAccessKeyId || !awsSecretAccessKey) {
    throw new AppError(400, 'invalid_request_error', 'missing_provider_credentials', 'Bedrock needs aws_access_key_id and aws_secret_access_key (x-gateway-aws-access-key-id, x-gateway-aws-secret-access-key).');
  }
  const signer = new AwsV4Signer({
    url,
    method,
    headers,
    body: (body ?? '') as BodyInit,
    accessKeyId: awsAccessKeyId,
    secretAccessKey: awsSecretAccessKey,
    ...(awsSessionToken ? { sessionToken: awsSessionToken } : {}),
    service: 'bedrock',
    region: bedrockRegion(ctx),
    datetime: amzDate(ctx.now()),
  });
  const signed = await signer.sign();
  const out: Record<string, string> = {};
  signed.headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

/**
 * A signed POST. Only host, x-amz-date (and the session token) are signed besides the body:
 * the pipeline may still set transport headers (accept-encoding, forwarded ones) without
 * breaking the signature.
 */
export async function signedPost(ctx: CallContext, url: string, body: string, accept: string): Promise<UpstreamCall> {
  const headers = await sigV4Headers(ctx, 'POST', url, { 'content-type': 'application/json' }, body);
  return { url, method: 'POST', headers: { ...headers, accept }, body };
}

/** Signs a pass-through call the same way: the caller's forwarded headers stay unsigned. */
export async function signCall(call: UpstreamCall, ctx: CallContext): Promise<UpstreamCall> {
  const auth = await sigV4Headers(ctx, call.method, call.url, {}, call.method === 'GET' || call.method === 'HEAD' ? null : call.body);
  return { ...call, headers: { ...call.headers, ...auth } };
}
