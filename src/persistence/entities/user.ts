import { defineEntity, type InferEntity } from '@mikro-orm/core';

import { ORGANISATION_ROLES } from '../../domain/roles.ts';

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: (p) => ({
    id: p.uuid().primary(),
    organisationId: p.uuid(),
    email: p.string(),
    firstName: p.string().nullable(),
    lastName: p.string().nullable(),
    role: p.enum([...ORGANISATION_ROLES]),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type User = InferEntity<typeof UserSchema>;
