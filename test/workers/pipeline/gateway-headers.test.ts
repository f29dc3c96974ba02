import { describe, it, expect } from 'vitest';
import { AppError } from '../../../src/domain/errors.ts';
import { readGatewayHeaders } from '../../../workers/pipeline/gateway-headers.ts';

describe('readGatewayHeaders', () => {
  it('takes the gateway key from x-gateway-api-key and the provider key from Authorization', () => {
    const h = readGatewayHeaders(new Headers({ 'x-gateway-api-key': 'gw', authorization: 'Bearer sk-1', 'x-gateway-provider': 'openai' }));
    expect(h).toMatchObject({ apiKey: 'gw', providerKey: 'sk-1', provider: 'openai' });
  });

  it('takes the gateway key from Authorization when x-gateway-api-key is absent', () => {
    const h = readGatewayHeaders(new Headers({ authorization: 'Bearer gw' }));
    expect(h).toMatchObject({ apiKey: 'gw', providerKey: null });
  });

  it('keeps a caller trace id and generates one otherwise', () => {
    expect(readGatewayHeaders(new Headers({ 'x-gateway-trace-id': 'abc' })).traceId).toBe('abc');
    expect(readGatewayHeaders(new Headers()).traceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('parses metadata and rejects anything but a JSON object, naming the header', () => {
    expect(readGatewayHeaders(new Headers({ 'x-gateway-metadata': '{"_user":"u1"}' })).metadata).toEqual({ _user: 'u1' });
    for (const bad of ['[1]', 'nope', '"s"']) {
      try {
        readGatewayHeaders(new Headers({ 'x-gateway-metadata': bad }));
        expect.unreachable();
      } catch (e) {
        expect((e as AppError).param).toBe('x-gateway-metadata');
      }
    }
  });

  it('reads forward and sensitive header lists (comma-separated or a JSON array), the timeout and the platform headers', () => {
    const h = readGatewayHeaders(new Headers({
      'x-gateway-forward-headers': 'X-Tenant, x-b',
      'x-gateway-sensitive-headers': '["X-Tenant"]',
      'x-gateway-request-timeout': '2500',
      'x-gateway-fetch-integrated-models': 'true',
      'x-gateway-virtual-key': 'vk-1',
      'x-gateway-config': '{"provider":"openai"}',
      authorization: 'Bearer pk', 'x-gateway-api-key': 'gw',
      'x-gateway-azure-resource-name': 'res', 'x-gateway-azure-deployment-id': 'dep', 'x-gateway-azure-api-version': 'v', 'x-gateway-azure-model-name': 'gpt-4o',
      'x-gateway-vertex-project-id': 'proj', 'x-gateway-vertex-region': 'us-central1',
      'x-gateway-aws-access-key-id': 'AKIA', 'x-gateway-aws-secret-access-key': 'sec', 'x-gateway-aws-session-token': 'tok', 'x-gateway-aws-region': 'eu-west-1',
    }));
    expect(h).toMatchObject({ forwardHeaders: ['X-Tenant', 'x-b'], sensitiveHeaders: ['x-tenant'], requestTimeoutMs: 2500, fetchIntegratedModels: true, virtualKey: 'vk-1', config: '{"provider":"openai"}' });
    expect(h.credentialsFor('azure-openai')).toEqual({ apiKey: 'pk', azureResourceName: 'res', azureDeploymentId: 'dep', azureApiVersion: 'v', azureModelName: 'gpt-4o' });
    expect(h.credentialsFor('vertex-ai')).toEqual({ apiKey: 'pk', vertexProjectId: 'proj', vertexRegion: 'us-central1' });
    expect(h.credentialsFor('bedrock')).toEqual({ apiKey: 'pk', awsAccessKeyId: 'AKIA', awsSecretAccessKey: 'sec', awsSessionToken: 'tok', awsRegion: 'eu-west-1' });
    // another provider never receives a platform's credentials
    expect(h.credentialsFor('openai')).toEqual({ apiKey: 'pk' });
  });

  it('rejects restricted forward headers and bad timeouts, naming the header', () => {
    for (const [name, value] of [['x-gateway-forward-headers', 'x-gateway-config'], ['x-gateway-forward-headers', 'host'], ['x-gateway-forward-headers', '["a", 1]'], ['x-gateway-request-timeout', '0'], ['x-gateway-request-timeout', '1.5']]) {
      try {
        readGatewayHeaders(new Headers({ [name!]: value! }));
        expect.unreachable();
      } catch (e) {
        expect((e as AppError).param).toBe(name);
      }
    }
  });
});
