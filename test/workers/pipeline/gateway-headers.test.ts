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
});
