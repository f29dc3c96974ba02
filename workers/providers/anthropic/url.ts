import type { CallContext } from '../contract.ts';

/** The reference gateway's Anthropic base URL; a custom host replaces it exactly. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';
export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropicUrl = (ctx: CallContext, path: string): string =>
  `${ctx.customHost ?? ANTHROPIC_BASE_URL}${path}`;
