import type { EntityManager } from '@mikro-orm/postgresql';
import { raw } from '@mikro-orm/core';
import { UserSchema } from '../../persistence/entities/index.ts';
import type { User } from '../../persistence/entities/user.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);

/** E-mail addresses are unique per organisation regardless of case (index app_user_org_email). */
export const emailIs = (email: string): Record<string, string> => ({ [raw('lower(email)')]: email.toLowerCase() });

export async function findUserByEmail(em: EntityManager, organisationId: string, email: string): Promise<User | null> {
  return em.findOne(UserSchema, { organisationId, ...emailIs(email) });
}
