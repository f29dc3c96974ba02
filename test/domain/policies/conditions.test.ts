import { describe, it, expect } from 'vitest';
import { conditionsSchema, groupBySchema, isAllowedKey, policyApplies, policyMatchesRequest, valueKeyOf, type RequestFacts } from '../../../src/domain/policies/conditions.ts';
import { nextUsageResetAt } from '../../../src/domain/policies/limits.ts';

const facts: RequestFacts = { api_key: 'key-1', organisation_id: 'org-1', workspace_id: 'ws-id', workspace_slug: 'ws-default', metadata: { _user: 'alice', team: 'ml', n: 3 } };

describe('policyApplies', () => {
  it('matches exact values, any of a list, and * for any present value', () => {
    expect(policyApplies([{ key: 'api_key', value: 'key-1' }], facts)).toBe(true);
    expect(policyApplies([{ key: 'api_key', value: 'key-2' }], facts)).toBe(false);
    expect(policyApplies([{ key: 'metadata.team', value: ['infra', 'ml'] }], facts)).toBe(true);
    expect(policyApplies([{ key: 'metadata.team', value: ['infra'] }], facts)).toBe(false);
    expect(policyApplies([{ key: 'metadata._user', value: '*' }], facts)).toBe(true);
    expect(policyApplies([{ key: 'metadata.missing', value: '*' }], facts)).toBe(false);
    expect(policyApplies([{ key: 'metadata.n', value: '3' }], facts)).toBe(true);
  });

  it('needs every condition (AND), and none is never a match', () => {
    expect(policyApplies([{ key: 'api_key', value: 'key-1' }, { key: 'metadata.team', value: 'ml' }], facts)).toBe(true);
    expect(policyApplies([{ key: 'api_key', value: 'key-1' }, { key: 'metadata.team', value: 'infra' }], facts)).toBe(false);
    expect(policyApplies([], facts)).toBe(false);
  });

  it('accepts a workspace by id or slug; MCP facts only when present', () => {
    expect(policyApplies([{ key: 'workspace_id', value: 'ws-default' }], facts)).toBe(true);
    expect(policyApplies([{ key: 'workspace_id', value: 'ws-id' }], facts)).toBe(true);
    expect(policyApplies([{ key: 'mcp_tool', value: '*' }], facts)).toBe(false);
    expect(policyApplies([{ key: 'mcp_tool', value: 'search' }], { ...facts, mcp_tool: 'search' })).toBe(true);
  });

  it('a policy governs its own workspace only', () => {
    const policy = { workspace_id: 'ws-id', conditions: [{ key: 'api_key', value: '*' }] };
    expect(policyMatchesRequest(policy, facts)).toBe(true);
    expect(policyMatchesRequest({ ...policy, workspace_id: 'other' }, facts)).toBe(false);
  });
});

describe('valueKeyOf', () => {
  it('names the counter by the group-by keys in order, or null when a fact is missing', () => {
    expect(valueKeyOf([{ key: 'metadata._user' }], facts)).toBe('metadata._user:alice');
    expect(valueKeyOf([{ key: 'api_key' }, { key: 'metadata.team' }], facts)).toBe('api_key:key-1|metadata.team:ml');
    expect(valueKeyOf([{ key: 'metadata.nope' }], facts)).toBeNull();
    expect(valueKeyOf([], facts)).toBeNull();
  });
});

describe('condition schemas', () => {
  it('validate keys against the policy kind and target', () => {
    const llm = { kind: 'rate_limit', target: 'llm' } as const;
    const mcp = { kind: 'rate_limit', target: 'mcp_tools' } as const;
    const usage = { kind: 'usage_limit' } as const;
    expect(isAllowedKey(llm, 'metadata.team')).toBe(true);
    expect(isAllowedKey(llm, 'metadata.')).toBe(false);
    expect(isAllowedKey(llm, 'mcp_server')).toBe(false);
    expect(isAllowedKey(mcp, 'mcp_server')).toBe(true);
    expect(isAllowedKey(usage, 'mcp_tool')).toBe(false);
    expect(conditionsSchema(mcp).safeParse([{ key: 'mcp_tool', value: 'x' }]).success).toBe(true);
    expect(conditionsSchema(llm).safeParse([{ key: 'mcp_tool', value: 'x' }]).success).toBe(false);
    expect(conditionsSchema(usage).safeParse([{ key: 'api_key', value: 'x', extra: 1 }]).success).toBe(false);
    expect(conditionsSchema(usage).safeParse([{ key: 'api_key', value: '' }]).success).toBe(false);
    expect(groupBySchema(usage).safeParse([{ key: 'api_key' }, { key: 'api_key' }]).success).toBe(false);
  });
});

describe('nextUsageResetAt', () => {
  it('monthly: first of the next month UTC; weekly: next Monday UTC; days: N days on; none: null', () => {
    const from = new Date('2026-01-31T15:00:00Z'); // a Saturday
    expect(nextUsageResetAt({ periodic_reset: 'monthly' }, from)?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(nextUsageResetAt({ periodic_reset: 'monthly' }, new Date('2026-12-05T00:00:00Z'))?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUsageResetAt({ periodic_reset: 'weekly' }, from)?.toISOString()).toBe('2026-02-02T00:00:00.000Z');
    expect(nextUsageResetAt({ periodic_reset: 'weekly' }, new Date('2026-02-02T00:00:00Z'))?.toISOString()).toBe('2026-02-09T00:00:00.000Z');
    expect(nextUsageResetAt({ periodic_reset_days: 10 }, from)?.toISOString()).toBe('2026-02-10T15:00:00.000Z');
    expect(nextUsageResetAt({}, from)).toBeNull();
  });
});

describe('model and provider conditions (issue 8 item 2)', () => {
  it('are valid keys of LLM policies only, and match the request’s model and provider', () => {
    expect(isAllowedKey({ kind: 'rate_limit', target: 'llm' }, 'model')).toBe(true);
    expect(isAllowedKey({ kind: 'usage_limit' }, 'provider')).toBe(true);
    expect(isAllowedKey({ kind: 'rate_limit', target: 'mcp_tools' }, 'model')).toBe(false);
    const llm: RequestFacts = { ...facts, model: 'gpt-4o', provider: 'openai' };
    expect(policyApplies([{ key: 'model', value: ['gpt-4o', 'gpt-4.1'] }, { key: 'provider', value: 'openai' }], llm)).toBe(true);
    expect(policyApplies([{ key: 'provider', value: 'anthropic' }], llm)).toBe(false);
    expect(policyApplies([{ key: 'model', value: '*' }], facts)).toBe(false);
    expect(valueKeyOf([{ key: 'model' }], llm)).toBe('model:gpt-4o');
  });
});
