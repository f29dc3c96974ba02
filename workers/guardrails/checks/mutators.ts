// Mutators (reference `default.regexReplace`, `default.addPrefix`).
import { rewriteRequest, rewriteResponse } from '../rewrite.ts';
import { textOf } from '../text.ts';
import type { CheckFn } from '../types.ts';
import { bool, CheckParamError, regexFrom, str } from './params.ts';

export const regexReplace: CheckFn = (ctx, p) => {
  const re = regexFrom(str(p, 'rule'), 'g');
  const replacement = str(p, 'redactText', '[REDACTED]');
  const detected = (textOf(ctx).match(re) ?? []).length;
  const f = (t: string) => t.replace(re, replacement);
  const verdict = !(detected > 0 && bool(p, 'failOnDetection'));
  if (!detected) return { verdict, data: { matches: 0 } };
  return ctx.event === 'beforeRequestHook'
    ? { verdict, data: { matches: detected }, transformedData: { request: { json: rewriteRequest(ctx.request.json, f) } } }
    : { verdict, data: { matches: detected }, transformedData: { response: { json: rewriteResponse(ctx.response?.json, f) } } };
};

export const addPrefix: CheckFn = (ctx, p) => {
  const prefix = str(p, 'prefix');
  const role = str(p, 'applyToRole', 'user');
  if (!['user', 'system', 'assistant'].includes(role)) throw new CheckParamError('applyToRole must be user, system or assistant');
  const messages = Array.isArray(ctx.request.json.messages) ? [...(ctx.request.json.messages as Record<string, unknown>[])] : null;
  if (!messages) return { verdict: true, data: { applied: false } };
  const idx = messages.map((m) => m.role).lastIndexOf(role);
  if (idx < 0 || bool(p, 'addToExisting', true) === false) {
    if (bool(p, 'onlyIfEmpty') && idx >= 0) return { verdict: true, data: { applied: false } };
    const at = role === 'system' ? 0 : messages.length;
    messages.splice(at, 0, { role, content: prefix });
  } else {
    const m = messages[idx]!;
    if (bool(p, 'onlyIfEmpty') && typeof m.content === 'string' && m.content.trim()) return { verdict: true, data: { applied: false } };
    messages[idx] = { ...m, content: typeof m.content === 'string' ? prefix + m.content : [{ type: 'text', text: prefix }, ...((m.content as unknown[]) ?? [])] };
  }
  return { verdict: true, data: { applied: true }, transformedData: { request: { json: { ...ctx.request.json, messages } } } };
};
