// Headers a webhook check may forward (issue 4 item 2 rules, applied again at run time so a
// config written before a rule changed cannot leak credentials): no credentials, no cloud
// metadata headers, no internal routing headers, no hop-by-hop headers, valid names only.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-goog-api-key', 'x-amz-security-token', 'x-gateway-api-key', 'x-gateway-virtual-key']);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length']);
const CLOUD_METADATA = new Set(['metadata-flavor', 'x-aws-ec2-metadata-token', 'x-aws-ec2-metadata-token-ttl-seconds', 'x-google-metadata-request', 'metadata']);

export const FORBIDDEN_FORWARD_HEADER = 'credential, cloud-metadata, internal routing and hop-by-hop headers cannot be forwarded';

export function isForwardableHeader(name: string): boolean {
  const n = name.toLowerCase();
  if (!TOKEN.test(name)) return false;
  if (CREDENTIALS.has(n) || HOP_BY_HOP.has(n) || CLOUD_METADATA.has(n)) return false;
  if (n.startsWith('x-gateway-') || n.startsWith('x-forwarded-') || n.startsWith('x-amz-') || n === 'forwarded' || n === 'x-real-ip') return false;
  return true;
}
