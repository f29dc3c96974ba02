import { AppError } from '../../src/domain/errors.ts';
import { builder } from '../builder.ts';

// Typed errors (errors plugin): the same stable codes and HTTP statuses as REST.
builder.objectType(AppError, {
  name: 'GatewayError',
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.exposeString('code'),
    type: t.exposeString('type'),
    param: t.exposeString('param', { nullable: true }),
    status: t.exposeInt('status'),
  }),
});
