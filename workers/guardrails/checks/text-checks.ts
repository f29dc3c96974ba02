// Built-in text checks (reference `default.*`, same ids, parameters and defaults).
import { textOf } from '../text.ts';
import type { CheckFn } from '../types.ts';
import { bool, inverted, num, operator, regexFrom, str, strings } from './params.ts';

const within = (n: number, min: number, max: number) => n >= min && n <= max;

export const regexMatch: CheckFn = (ctx, p) => {
  const text = textOf(ctx);
  const match = regexFrom(str(p, 'rule')).exec(text);
  return { verdict: inverted(match !== null, p), data: { regexPattern: p.rule, not: bool(p, 'not'), matchDetails: match ? { matchedText: match[0], index: match.index } : null } };
};

export const sentenceCount: CheckFn = (ctx, p) => {
  const text = textOf(ctx);
  const count = text.split(/(?<=[.!?])\s+|[.!?]$/).filter((s) => s.trim().length > 0).length;
  const min = num(p, 'minSentences', 0);
  const max = num(p, 'maxSentences', 99_999);
  return { verdict: inverted(within(count, min, max), p), data: { sentenceCount: count, minCount: min, maxCount: max } };
};

export const wordCount: CheckFn = (ctx, p) => {
  const count = textOf(ctx).trim().split(/\s+/).filter(Boolean).length;
  const min = num(p, 'minWords', 0);
  const max = num(p, 'maxWords', 99_999);
  return { verdict: inverted(within(count, min, max), p), data: { wordCount: count, minWords: min, maxWords: max } };
};

export const characterCount: CheckFn = (ctx, p) => {
  const count = [...textOf(ctx)].length;
  const min = num(p, 'minCharacters', 0);
  const max = num(p, 'maxCharacters', 9_999_999);
  return { verdict: inverted(within(count, min, max), p), data: { characterCount: count, minCharacters: min, maxCharacters: max } };
};

export const contains: CheckFn = (ctx, p) => {
  const text = textOf(ctx);
  const words = strings(p, 'words');
  const op = operator(p, 'any');
  const foundWords = words.filter((w) => text.includes(w));
  const missingWords = words.filter((w) => !text.includes(w));
  const verdict = op === 'any' ? foundWords.length > 0 : op === 'all' ? missingWords.length === 0 : foundWords.length === 0;
  return { verdict, data: { operator: op, foundWords, missingWords } };
};

export const alluppercase: CheckFn = (ctx, p) => {
  const letters = textOf(ctx).replace(/[^\p{L}]/gu, '');
  return { verdict: inverted(letters.length > 0 && letters === letters.toUpperCase(), p), data: { not: bool(p, 'not') } };
};

export const alllowercase: CheckFn = (ctx, p) => {
  const letters = textOf(ctx).replace(/[^\p{L}]/gu, '');
  return { verdict: inverted(letters.length > 0 && letters === letters.toLowerCase(), p), data: { not: bool(p, 'not') } };
};

export const endsWith: CheckFn = (ctx, p) => {
  const suffix = str(p, 'suffix');
  const text = textOf(ctx).trimEnd();
  return { verdict: inverted(text.endsWith(suffix), p), data: { suffix, not: bool(p, 'not') } };
};

export const notNull: CheckFn = (ctx, p) => {
  const text = textOf(ctx);
  return { verdict: inverted(text.trim().length > 0, p), data: { not: bool(p, 'not') } };
};

// Fenced blocks name their language; without a fence, look for each language's tell-tale syntax.
const CODE_SIGNS: Record<string, RegExp> = {
  sql: /\b(select\s+[\w*, ]+\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from|create\s+table)\b/i,
  python: /^\s*(def \w+\(.*\):|import \w+|from \w+ import|class \w+(\(.*\))?:)/m,
  typescript: /\b(interface \w+\s*\{|: (string|number|boolean)\b|const \w+: \w+)/,
  javascript: /\b(function \w*\(|const \w+ = |=> \{|console\.log\()/,
  java: /\bpublic (static )?(class|void|int|String)\b/,
  go: /^\s*(func \w+\(|package \w+)/m,
  rust: /\b(fn \w+\(|let mut |impl \w+)/,
  bash: /^\s*(#!\/bin\/(ba)?sh|echo |export \w+=)/m,
  html: /<(html|div|body|span|p)[\s>]/i,
  css: /[.#]?[\w-]+\s*\{\s*[\w-]+\s*:\s*[^;]+;/,
  c: /#include\s*<\w+\.h>/,
  'c++': /#include\s*<\w+>|std::/,
  'c#': /\busing System;|\bnamespace \w+\s*\{/,
  php: /<\?php/,
  ruby: /^\s*(def \w+|end$|require ['"])/m,
  json: /^\s*[{[]\s*"[^"]+"\s*:/,
  yaml: /^\s*[\w-]+:\s+[^\n]+\n\s*[\w-]+:/m,
};

export const containsCode: CheckFn = (ctx, p) => {
  const format = str(p, 'format');
  const text = textOf(ctx);
  const lang = format.toLowerCase();
  const fences = [...text.matchAll(/```([\w+#-]*)\n/g)].map((m) => m[1]!.toLowerCase());
  const aliases: Record<string, string[]> = { javascript: ['js', 'javascript'], typescript: ['ts', 'typescript'], python: ['py', 'python'], bash: ['sh', 'bash', 'shell'], 'c++': ['cpp', 'c++'], 'c#': ['cs', 'csharp', 'c#'] };
  const names = aliases[lang] ?? [lang];
  let found = fences.some((f) => names.includes(f));
  if (!found && !fences.length) found = CODE_SIGNS[lang]?.test(text) ?? false;
  return { verdict: inverted(found, p), data: { format, fencedLanguages: fences, not: bool(p, 'not') } };
};

const URL_RE = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi;

/** URLs in the text must answer (or resolve, with onlyDNS); calls go through the gateway's SSRF-checked upstream. */
export const validUrls: CheckFn = async (ctx, p, deps) => {
  const urls = [...new Set(textOf(ctx).match(URL_RE) ?? [])].map((u) => u.replace(/[.,;:!?]+$/, ''));
  const timeoutMs = num(p, 'timeout', 3_000);
  const results = await Promise.all(
    urls.map(async (url) => {
      try {
        const res = await deps.fetch(url, { method: 'HEAD', headers: {}, timeoutMs });
        return { url, valid: res.status < 400 || res.status === 405 };
      } catch {
        return { url, valid: false };
      }
    }),
  );
  const invalid = results.filter((r) => !r.valid).map((r) => r.url);
  return { verdict: inverted(invalid.length === 0, p), data: { validUrls: results.filter((r) => r.valid).map((r) => r.url), invalidUrls: invalid } };
};
