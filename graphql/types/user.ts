import { deleteUser, type DeletedUser } from '../../src/services/users/delete-user.ts';
import { getUser, listUsers } from '../../src/services/users/read-users.ts';
import { updateUser } from '../../src/services/users/update-user.ts';
import type { UserView } from '../../src/services/users/user-view.ts';
import { builder } from '../builder.ts';
import { pageType } from './page.ts';

// Organisation users (control-plane-schemas 2.8). Field names follow the REST shapes; the list
// takes the catalogue's camelCase paging (`currentPage`, `pageSize`), snake_case as aliases.

export const UserRef = builder.objectRef<UserView>('User').implement({
  description: 'A person in the organisation.',
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id'),
    first_name: t.exposeString('first_name', { nullable: true }),
    last_name: t.exposeString('last_name', { nullable: true }),
    role: t.exposeString('role', { description: 'owner | admin | member' }),
    email: t.exposeString('email'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    last_updated_at: t.expose('last_updated_at', { type: 'DateTime' }),
    workspace_ids: t.exposeStringList('workspace_ids', { description: 'The workspaces the user is a member of.' }),
  }),
});

const UserPageRef = pageType('UserPage', UserRef);

const DeletedUserRef = builder.objectRef<DeletedUser>('DeletedUser').implement({
  fields: (t) => ({ id: t.exposeID('id'), object: t.exposeString('object'), deleted: t.exposeBoolean('deleted') }),
});

const UpdateUserInput = builder.inputType('UpdateUserInput', {
  fields: (t) => ({ role: t.string({ description: 'admin | member (owner cannot be assigned)' }) }),
});

builder.queryFields((t) => ({
  users: t.field({
    type: UserPageRef,
    args: {
      currentPage: t.arg.int(),
      pageSize: t.arg.int(),
      current_page: t.arg.int({ description: 'Alias of currentPage.' }),
      page_size: t.arg.int({ description: 'Alias of pageSize.' }),
      role: t.arg.string(),
      email: t.arg.string(),
    },
    resolve: (_, a, ctx) =>
      listUsers(ctx.em, ctx.actor, {
        currentPage: a.currentPage ?? a.current_page,
        pageSize: a.pageSize ?? a.page_size,
        role: a.role,
        email: a.email,
      }),
  }),
  user: t.field({
    type: UserRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => getUser(ctx.em, ctx.actor, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  updateUser: t.field({
    type: UserRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: (_, a, ctx) =>
      updateUser(ctx.em, ctx.actor, ctx.meta, String(a.id), Object.fromEntries(Object.entries(a.input).filter(([, v]) => v !== undefined))),
  }),
  deleteUser: t.field({
    type: DeletedUserRef,
    errors: { directResult: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, a, ctx) => deleteUser(ctx.em, ctx.actor, ctx.meta, String(a.id)),
  }),
}));
