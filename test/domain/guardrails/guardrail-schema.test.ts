import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../src/domain/errors.ts';
import { parseWith } from '../../../src/domain/validation.ts';
import { actionsSchema, checksSchema } from '../../../src/domain/guardrails/guardrail-schema.ts';
import { CHECK_IDS } from '../../../src/domain/guardrails/check-catalogue.ts';
import { forwardHeaderIssue, restrictedKind } from '../../../src/domain/guardrails/forward-headers.ts';

function errorOf(checks: unknown): { param: string | null; message: string } {
  try {
    parseWith(z.object({ checks: checksSchema }), { checks });
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return { param: (e as AppError).param, message: (e as AppError).message };
  }
  throw new Error('expected a 400');
}

const hook = (parameters: Record<string, unknown>) => [{ id: 'default.webhook', parameters: { webhookURL: 'https://hooks.example/check', ...parameters } }];

describe('forwardHeaders rules', () => {
  it('classifies credential, cloud-metadata, internal routing and hop-by-hop headers, any case', () => {
    for (const h of ['Authorization', 'proxy-authorization', 'Cookie', 'x-api-key', 'api-key', 'X-Goog-Api-Key', 'x-amz-security-token', 'x-amz-date', 'x-my-secret', 'x-refresh-token', 'x-user-password']) {
      expect(restrictedKind(h), h).toBe('credential');
    }
    for (const h of ['Metadata', 'metadata-flavor', 'X-Google-Metadata-Request', 'x-aws-ec2-metadata-token', 'x-aws-ec2-metadata-token-ttl-seconds']) {
      expect(restrictedKind(h), h).toBe('cloud_metadata');
    }
    for (const h of ['host', 'x-gateway-api-key', 'X-Gateway-Config', 'x-gateway-provider', 'x-forwarded-for', 'forwarded', 'x-real-ip', 'x-envoy-original-path']) {
      expect(restrictedKind(h), h).toBe('internal_routing');
    }
    for (const h of ['connection', 'Keep-Alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection', 'content-length']) {
      expect(restrictedKind(h), h).toBe('hop_by_hop');
    }
    for (const h of ['x-request-id', 'x-user-id', 'accept-language', 'user-agent', 'x-tenant']) expect(restrictedKind(h), h).toBeNull();
  });

  it('refuses invalid names', () => {
    expect(forwardHeaderIssue('')).toBe('is empty');
    expect(forwardHeaderIssue('x bad')).toMatch(/not a valid header name/);
    expect(forwardHeaderIssue('x:y')).toMatch(/not a valid header name/);
    expect(forwardHeaderIssue('é')).toMatch(/not a valid header name/);
    expect(forwardHeaderIssue('x'.repeat(257))).toMatch(/longer than 256/);
    expect(forwardHeaderIssue('x-request-id')).toBeNull();
  });

  it('names the offending entry of a webhook check', () => {
    expect(errorOf(hook({ forwardHeaders: ['x-request-id', 'Authorization'] }))).toEqual({
      param: 'checks[0].parameters.forwardHeaders[1]',
      message: 'checks[0].parameters.forwardHeaders[1]: "Authorization" is a credential header and is never forwarded',
    });
    expect(errorOf(hook({ forwardHeaders: ['x-gateway-config'] })).message).toMatch(/internal routing header/);
    expect(errorOf(hook({ forwardHeaders: ['metadata-flavor'] })).message).toMatch(/cloud-metadata header/);
    expect(errorOf(hook({ forwardHeaders: ['Transfer-Encoding'] })).message).toMatch(/hop-by-hop header/);
    expect(errorOf(hook({ forwardHeaders: ['bad name'] })).param).toBe('checks[0].parameters.forwardHeaders[0]');
    expect(errorOf(hook({ forwardHeaders: ['X-Tenant', 'x-tenant'] })).message).toMatch(/listed twice/);
    expect(errorOf(hook({ forwardHeaders: 'x-tenant' })).param).toBe('checks[0].parameters.forwardHeaders');
    expect(parseWith(checksSchema, hook({ forwardHeaders: ['x-request-id', 'X-Tenant'] }))[0]!.parameters.forwardHeaders).toEqual(['x-request-id', 'X-Tenant']);
  });

  it('is a parameter of webhook and log checks only', () => {
    expect(errorOf([{ id: 'default.regexMatch', parameters: { rule: 'x', forwardHeaders: ['x-tenant'] } }])).toMatchObject({ param: 'checks[0].parameters.forwardHeaders' });
    expect(errorOf([{ id: 'qualifire.pii', parameters: { forwardHeaders: ['x-tenant'] } }]).message).toMatch(/only webhook and log checks/);
    expect(() => parseWith(checksSchema, [{ id: 'default.log', parameters: { logURL: 'https://logs.example', forwardHeaders: ['x-tenant'] } }])).not.toThrow();
  });
});

describe('checks', () => {
  it('rejects unknown check ids naming the field', () => {
    expect(errorOf([{ id: 'default.wordCount', parameters: {} }, { id: 'default.nope' }])).toEqual({ param: 'checks[1].id', message: 'checks[1].id: unknown check id "default.nope"' });
    expect(errorOf([{ id: 'acme.scan' }]).param).toBe('checks[0].id');
  });

  it('reads a bare id as default.<id>, keeps parameters as given and defaults is_enabled to true', () => {
    expect(parseWith(checksSchema, [{ id: 'wordCount', parameters: { minWords: 1, maxWords: 10 }, name: 'Short' }])).toEqual([
      { id: 'default.wordCount', parameters: { minWords: 1, maxWords: 10 }, name: 'Short', is_enabled: true },
    ]);
  });

  it('validates parameters per check id', () => {
    expect(errorOf([{ id: 'default.regexMatch', parameters: {} }]).param).toBe('checks[0].parameters.rule');
    expect(errorOf([{ id: 'default.regexMatch', parameters: { rule: '(' } }]).message).toMatch(/not a valid regular expression/);
    expect(errorOf([{ id: 'default.wordCount', parameters: { minWords: 10, maxWords: 2 } }]).param).toBe('checks[0].parameters.minWords');
    expect(errorOf([{ id: 'default.contains', parameters: { words: ['a'], operator: 'some' } }]).param).toBe('checks[0].parameters.operator');
    expect(errorOf([{ id: 'default.containsCode', parameters: { format: 'COBOL' } }]).param).toBe('checks[0].parameters.format');
    expect(errorOf([{ id: 'default.webhook', parameters: { webhookURL: 'ftp://x' } }]).param).toBe('checks[0].parameters.webhookURL');
    expect(errorOf([{ id: 'default.webhook', parameters: { webhookURL: 'https://u:p@x.example' } }]).message).toMatch(/credentials/);
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://metadata.google.internal/x', 'http://[fd00:ec2::254]/', 'http://[fe80::1]/', 'http://Metadata.Azure.com./', 'http://2852039166/', 'http://[::ffff:169.254.169.254]/']) {
      expect(errorOf([{ id: 'default.webhook', parameters: { webhookURL: url } }]), url).toMatchObject({ param: 'checks[0].parameters.webhookURL', message: expect.stringMatching(/cloud metadata/) });
    }
    expect(() => parseWith(checksSchema, [{ id: 'default.webhook', parameters: { webhookURL: 'http://10.0.0.5:8080/hook' } }])).not.toThrow();
    expect(errorOf(hook({ headers: { 'bad name': 'x' } })).param).toBe('checks[0].parameters.headers.bad name');
    expect(errorOf(hook({ timeout: 0 })).param).toBe('checks[0].parameters.timeout');
    expect(errorOf(hook({ extra: 1 }))).toMatchObject({ param: 'checks[0].parameters.extra', message: 'checks[0].parameters.extra: not a parameter of default.webhook' });
    expect(errorOf([{ id: 'gateway.pii', parameters: { categories: ['EMAIL_ADDRESS', 'DNA'] } }]).param).toBe('checks[0].parameters.categories[1]');
    expect(errorOf([{ id: 'default.jwt', parameters: { jwksUri: 'https://a.example/jwks, nope', headerKey: 'x-jwt' } }]).param).toBe('checks[0].parameters.jwksUri');
    expect(errorOf([{ id: 'default.allowedRequestTypes', parameters: {} }]).param).toBe('checks[0].parameters');
    expect(errorOf([{ id: 'sydelabs.sydeguard', parameters: { toxicity_threshold: 1.5 } }]).param).toBe('checks[0].parameters.toxicity_threshold');
    expect(errorOf([{ id: 'default.jsonSchema', parameters: { schema: { type: 'object', properties: { a: { type: 'strin' } } } } }])).toMatchObject({
      param: 'checks[0].parameters.schema.properties.a.type',
      message: expect.stringMatching(/not a valid JSON Schema/),
    });
    expect(errorOf([{ id: 'default.jsonSchema', parameters: { schema: { minProperties: -1 } } }]).param).toBe('checks[0].parameters.schema.minProperties');
    expect(errorOf([]).message).toMatch(/at least one check/);
    expect(errorOf([{ id: 'default.notNull', extra: true }]).param).toBe('checks[0].extra');
  });

  it('accepts every catalogued check with the parameters the spec requires', () => {
    const required: Record<string, Record<string, unknown>> = {
      'default.jwt': { jwksUri: 'https://a.example/jwks,https://b.example/jwks', headerKey: 'x-jwt' },
      'default.modelWhitelist': { models: ['gpt-4o'] },
      'default.modelRules': { rules: { defaults: ['gpt-4o'] } },
      'default.regexMatch': { rule: '\\d+' },
      'default.regexReplace': { rule: '/secret/gi' },
      'default.jsonSchema': { schema: { type: 'object' } },
      'default.jsonKeys': { keys: ['a'], operator: 'all' },
      'default.contains': { words: ['a'], operator: 'none' },
      'default.containsCode': { format: 'C#' },
      'default.webhook': { webhookURL: 'https://hooks.example' },
      'default.log': { logURL: 'https://logs.example' },
      'default.endsWith': { suffix: '.' },
      'default.requiredMetadataKeys': { metadataKeys: ['team'], operator: 'all' },
      'default.allowedRequestTypes': { allowedTypes: ['chatComplete'] },
      'default.addPrefix': { prefix: 'Be nice. ' },
      'gateway.moderateContent': { categories: ['hate'] },
      'gateway.pii': { categories: ['SSN'], redact: true },
      'aporia.validateProject': { projectID: 'p1' },
      'pillar.scanPrompt': { scanners: ['pii'] },
      'pillar.scanResponse': { scanners: ['secrets'] },
      'patronus.custom': { profile: 'system:is-concise' },
      'mistral.moderateContent': { categories: ['pii'] },
      'bedrock.guard': { guardrailId: 'g', guardrailVersion: '1' },
      'panw-prisma-airs.intercept': { profile_name: 'p' },
    };
    for (const id of CHECK_IDS) {
      expect(() => parseWith(checksSchema, [{ id, parameters: required[id] ?? {} }]), id).not.toThrow();
    }
  });
});

describe('actions', () => {
  it('fills the documented defaults and validates types', () => {
    expect(parseWith(actionsSchema, {})).toEqual({
      deny: false,
      async: false,
      on_success: { feedback: { value: 5, weight: 1, metadata: '' } },
      on_fail: { feedback: { value: -5, weight: 1, metadata: '' } },
    });
    expect(parseWith(actionsSchema, { deny: true, on_fail: { feedback: { value: -10, weight: 2, metadata: 'blocked' } } })).toMatchObject({
      deny: true,
      on_fail: { feedback: { value: -10, weight: 2, metadata: 'blocked' } },
    });
    expect(() => parseWith(z.object({ actions: actionsSchema }), { actions: { deny: 'yes' } })).toThrow(/actions.deny/);
    // The upstream example's non-conforming shape (control-plane-schemas §3, 6) is refused.
    expect(() => parseWith(z.object({ actions: actionsSchema }), { actions: { onFail: 'block', message: 'x' } })).toThrow(/actions.onFail/);
  });
});
