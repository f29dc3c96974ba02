// Checks on the request itself: model allow-lists and rules, request types, metadata keys.
import type { CheckFn } from '../types.ts';
import { CheckParamError, inverted, operator, strings } from './params.ts';

export const modelWhitelist: CheckFn = (ctx, p) => {
  const models = strings(p, 'models');
  return { verdict: inverted(models.includes(ctx.model), p), data: { requestedModel: ctx.model, allowedModels: models } };
};

/** `rules: {defaults: [...], metadata: {<key>: {<value>: [...models]}}}`: a metadata match decides, else the defaults. */
export const modelRules: CheckFn = (ctx, p) => {
  const rules = p.rules as { defaults?: unknown; metadata?: unknown } | undefined;
  if (!rules || typeof rules !== 'object') throw new CheckParamError('rules is required (an object with defaults and metadata)');
  let allowed: string[] | null = null;
  const byKey = rules.metadata && typeof rules.metadata === 'object' ? (rules.metadata as Record<string, Record<string, unknown>>) : {};
  for (const [key, values] of Object.entries(byKey)) {
    const v = ctx.metadata[key];
    const list = typeof v === 'string' && values ? values[v] : undefined;
    if (Array.isArray(list)) allowed = [...(allowed ?? []), ...list.filter((m): m is string => typeof m === 'string')];
  }
  if (allowed === null) allowed = Array.isArray(rules.defaults) ? rules.defaults.filter((m): m is string => typeof m === 'string') : [];
  return { verdict: inverted(allowed.includes(ctx.model), p), data: { requestedModel: ctx.model, allowedModels: allowed } };
};

export const allowedRequestTypes: CheckFn = (ctx, p) => {
  const allowed = strings(p, 'allowedTypes', false);
  const blocked = strings(p, 'blockedTypes', false);
  if (!allowed.length && !blocked.length) throw new CheckParamError('allowedTypes or blockedTypes is required');
  const verdict = !blocked.includes(ctx.requestType) && (!allowed.length || allowed.includes(ctx.requestType));
  return { verdict, data: { requestType: ctx.requestType, allowedTypes: allowed, blockedTypes: blocked } };
};

export const requiredMetadataKeys: CheckFn = (ctx, p) => {
  const keys = strings(p, 'metadataKeys');
  const op = operator(p, 'all');
  const present = keys.filter((k) => ctx.metadata[k] !== undefined && ctx.metadata[k] !== null);
  const missing = keys.filter((k) => !present.includes(k));
  const verdict = op === 'all' ? missing.length === 0 : op === 'any' ? present.length > 0 : present.length === 0;
  return { verdict, data: { operator: op, presentKeys: present, missingKeys: missing } };
};
