// Removes secrets from anything recorded (audit request details, logs).
const SECRET_NAME = /(^|[_-])(key|api[_-]?key|secret|password|passwd|token|authorization|credentials?|private[_-]?key)$/i;
const SAFE = new Set(['key_transition_period_ms', 'target_field', 'secret_reference_id', 'secret_key']);
export const REDACTED = '[redacted]';

export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 12) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = !SAFE.has(k) && SECRET_NAME.test(k) && v != null ? REDACTED : redactSecrets(v, depth + 1);
    }
    return out;
  }
  return value;
}
