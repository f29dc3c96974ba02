// Parameter readers: a check with bad parameters errors (and the hook decides by fail_on_error).
export class CheckParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckParamError';
  }
}

export const bool = (p: Record<string, unknown>, name: string, fallback = false): boolean => (typeof p[name] === 'boolean' ? (p[name] as boolean) : fallback);

export function num(p: Record<string, unknown>, name: string, fallback: number): number {
  const v = p[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new CheckParamError(`${name} must be a number`);
  return v;
}

export function str(p: Record<string, unknown>, name: string, fallback?: string): string {
  const v = p[name];
  if (typeof v === 'string' && v) return v;
  if (fallback !== undefined) return fallback;
  throw new CheckParamError(`${name} is required (a string)`);
}

export function strings(p: Record<string, unknown>, name: string, required = true): string[] {
  const v = p[name];
  if (v === undefined && !required) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new CheckParamError(`${name} must be an array of strings`);
  return v as string[];
}

export function operator(p: Record<string, unknown>, fallback: 'any' | 'all' | 'none'): 'any' | 'all' | 'none' {
  const v = p.operator ?? fallback;
  if (v !== 'any' && v !== 'all' && v !== 'none') throw new CheckParamError('operator must be any, all or none');
  return v;
}

/** `/pattern/flags` or a plain pattern. */
export function regexFrom(rule: string, extraFlags = ''): RegExp {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(rule);
  try {
    const flags = [...new Set(((m ? m[2]! : '') + extraFlags).split(''))].join('');
    return new RegExp(m ? m[1]! : rule, flags);
  } catch (err) {
    throw new CheckParamError(`rule is not a valid regular expression: ${(err as Error).message}`);
  }
}

export const inverted = (verdict: boolean, p: Record<string, unknown>): boolean => (bool(p, 'not') ? !verdict : verdict);
