import { maskedSecretFields } from '../../domain/integrations/configurations.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { Integration } from '../../persistence/entities/integration.ts';

// The integration's secrets are sealed with a context naming the row and field, so a sealed
// value copied to another row or column does not open (SecretBox.seal's `context`).

export const keyContext = (integrationId: string): string => `integration:${integrationId}:key`;
export const configurationsContext = (integrationId: string): string => `integration:${integrationId}:configurations`;

/** The secret configuration fields, opened. */
export function openSecretConfigurations(box: SecretBox, i: Pick<Integration, 'id' | 'secretsSealed'>): Record<string, unknown> {
  if (!i.secretsSealed) return {};
  return JSON.parse(box.open(i.secretsSealed, configurationsContext(i.id))) as Record<string, unknown>;
}

export function sealSecretConfigurations(box: SecretBox, integrationId: string, secret: Record<string, unknown>): string | null {
  return Object.keys(secret).length ? box.seal(JSON.stringify(secret), configurationsContext(integrationId)) : null;
}

export function openKey(box: SecretBox, i: Pick<Integration, 'id' | 'keySealed'>): string | null {
  return i.keySealed ? box.open(i.keySealed, keyContext(i.id)) : null;
}

/** The configuration as answered: clear fields plus `masked_<field>` for each secret one. */
export function maskedConfigurations(box: SecretBox, i: Integration): Record<string, unknown> {
  return { ...i.configurations, ...maskedSecretFields(openSecretConfigurations(box, i)) };
}
