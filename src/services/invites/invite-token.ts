import { generateApiKeySecret, hashApiKey } from '../../domain/api-key-secret.ts';

/** Invites are valid for seven days from when they are sent (or last resent). */
export const INVITE_TTL_MS = 7 * 86_400_000;
export const ACCEPT_PATH = '/v1/invites/accept';

/** A single-use random token; only its SHA-256 is stored (invite.token_hash). */
export async function newInviteToken(): Promise<{ token: string; hash: string }> {
  const token = generateApiKeySecret();
  return { token, hash: await hashApiKey(token) };
}

/**
 * The link the invitee follows. With no public base URL known (see the users/invites report:
 * RequestMeta carries no origin), the link is relative to the control plane's address.
 */
export function inviteLink(token: string, baseUrl: string | null | undefined): string {
  const base = (baseUrl ?? '').replace(/\/+$/, '');
  return `${base}${ACCEPT_PATH}?token=${encodeURIComponent(token)}`;
}
