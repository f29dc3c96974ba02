// A local PII detector (no outbound call): e-mail, phone, credit card (Luhn-checked), IBAN
// (mod-97-checked), US SSN, IPv4/IPv6. With `redact`, it rewrites each finding as [<TYPE>].
import { rewriteRequest, rewriteResponse } from '../rewrite.ts';
import { textOf } from '../text.ts';
import type { CheckFn } from '../types.ts';
import { bool, CheckParamError } from './params.ts';

export const PII_CATEGORIES = ['email', 'phone', 'credit_card', 'iban', 'ssn', 'ip'] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

export function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? (ch.charCodeAt(0) - 55).toString() : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

const IPV4 = String.raw`\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b`;
const IPV6 = String.raw`\b(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}\b|\b(?:[0-9a-fA-F]{1,4}:){1,7}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4}){0,6})?\b`;

const DETECTORS: Record<PiiCategory, { re: RegExp; valid?: (m: string) => boolean }> = {
  email: { re: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g },
  credit_card: { re: /\b(?:\d[ -]?){12,18}\d\b/g, valid: (m) => luhn(m.replace(/\D/g, '')) },
  iban: { re: /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b/g, valid: ibanValid },
  ssn: { re: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g },
  phone: { re: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?|\d{2,4}[\s.-])\d{3,4}[\s.-]?\d{3,4}\b/g },
  ip: { re: new RegExp(`${IPV4}|${IPV6}`, 'g') },
};

export interface PiiFinding {
  category: PiiCategory;
  text: string;
}

/** Findings in order of category precedence: a card number is not also reported as a phone. */
export function detectPii(text: string, categories: readonly PiiCategory[] = PII_CATEGORIES): PiiFinding[] {
  const found: PiiFinding[] = [];
  const taken: [number, number][] = [];
  const order: PiiCategory[] = ['email', 'credit_card', 'iban', 'ssn', 'ip', 'phone'];
  for (const category of order) {
    if (!categories.includes(category)) continue;
    const { re, valid } = DETECTORS[category];
    for (const m of text.matchAll(re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      if (valid && !valid(m[0])) continue;
      taken.push([start, end]);
      found.push({ category, text: m[0] });
    }
  }
  return found;
}

export function redactPii(text: string, categories: readonly PiiCategory[] = PII_CATEGORIES): string {
  let out = text;
  for (const f of detectPii(text, categories)) out = out.split(f.text).join(`[${f.category.toUpperCase()}]`);
  return out;
}

function categoriesOf(p: Record<string, unknown>): PiiCategory[] {
  const c = p.categories;
  if (c === undefined) return [...PII_CATEGORIES];
  if (!Array.isArray(c) || !c.every((x) => (PII_CATEGORIES as readonly string[]).includes(x as string))) {
    throw new CheckParamError(`categories must be a subset of ${PII_CATEGORIES.join(', ')}`);
  }
  return c as PiiCategory[];
}

/** Verdict: no PII found (or, with `redact`, found and removed). */
export const pii: CheckFn = (ctx, p) => {
  const categories = categoriesOf(p);
  const findings = detectPii(textOf(ctx), categories);
  const data = { detected: findings.map((f) => f.category), count: findings.length };
  if (!findings.length || !bool(p, 'redact')) return { verdict: findings.length === 0, data };
  const f = (t: string) => redactPii(t, categories);
  return ctx.event === 'beforeRequestHook'
    ? { verdict: true, data, transformedData: { request: { json: rewriteRequest(ctx.request.json, f) } } }
    : { verdict: true, data, transformedData: { response: { json: rewriteResponse(ctx.response?.json, f) } } };
};
