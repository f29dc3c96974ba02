import type { ObjectRef } from '@pothos/core';
import type { Page } from '../../src/services/paging.ts';
import { builder } from '../builder.ts';

/** The `{object, total, data}` list envelope (control-plane-schemas 1.1) for one item type. */
export function pageType<T>(name: string, item: ObjectRef<any, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      object: t.exposeString('object'),
      total: t.exposeInt('total'),
      data: t.field({ type: [item], resolve: (p) => p.data }),
    }),
  });
}
