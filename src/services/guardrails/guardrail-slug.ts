import { generateSlug } from '../../domain/slug.ts';

/** `guard_<slugified name>-<6 random hex>` (control-plane-schemas 1.4: guardrail slugs are `guard_`-prefixed). */
export const generateGuardrailSlug = (name: string): string => generateSlug('guard', name, 'guardrail').replace(/^guard-/, 'guard_');
