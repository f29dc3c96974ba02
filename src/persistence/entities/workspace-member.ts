import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { WORKSPACE_ROLES } from '../../domain/roles.ts';

export const WorkspaceMemberSchema = defineEntity({
  name: 'WorkspaceMember',
  tableName: 'workspace_member',
  properties: (p) => ({
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    userId: p.uuid(),
    role: p.enum([...WORKSPACE_ROLES]),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type WorkspaceMember = InferEntity<typeof WorkspaceMemberSchema>;
