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

export async function signedPost(ctx: CallContext, url: string, body: string, accept: string): Promise<UpstreamCall> {
  const { awsAccessKeyId, awsSecretAccessKey, awsSessionToken } = ctx.credentials;
  if (!awsAccessKeyId || !awsSecretAccessKey) {
    throw new AppError(400, 'invalid_request_error', 'missing_provider_credentials', 'Bedrock needs aws_access_key_id and aws_secret_access_key (x-gateway-aws-access-key-id, x-gateway-aws-secret-access-key).');
  }
  const signer = new AwsV4Signer({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body,
    accessKeyId: awsAccessKeyId,
    secretAccessKey: awsSecretAccessKey,
    ...(awsSessionToken ? { sessionToken: awsSessionToken } : {}),
    service: 'bedrock',
    region: bedrockRegion(ctx),
    datetime: amzDate(ctx.now()),
  });
  const signed = await signer.sign();
  const headers: Record<string, string> = {};
  signed.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return { url, method: 'POST', headers, body };
}
