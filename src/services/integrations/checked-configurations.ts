import { authTypeIssues, variantOf } from '../../domain/integrations/configurations.ts';
import { invalidParameter } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';

/**
 * `configurations` checked against the provider's variant and its auth type's needs
 * (control-plane-schemas 2.4); a 400 names `configurations.<field>`.
 */
export function checkedConfigurations(aiProviderId: string, input: Record<string, unknown>): Record<string, unknown> {
  const parsed = parseWith(variantOf(aiProviderId), input, 'configurations');
  const [issue] = authTypeIssues(parsed);
  if (issue) throw invalidParameter(`configurations.${issue[0]}`, `configurations.${issue[0]}: ${issue[1]}`);
  return parsed;
}

/** The stored configuration with an update merged over it: given fields replace, `null` removes one. */
export function mergeConfigurations(stored: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const out = { ...stored };
  for (const [k, v] of Object.entries(update)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
