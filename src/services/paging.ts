import { invalidParameter } from '../domain/errors.ts';

/** `{object, total, data}`, the control plane's list envelope (control-plane-schemas 1.1). */
export interface Page<T> {
  object: 'list';
  total: number;
  data: T[];
}

export interface PageArgs {
  currentPage?: number | null;
  pageSize?: number | null;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/**
 * 0-based `current_page` and `page_size`, validated. The names in errors are the REST ones;
 * camelCase lists (`/admin/users`) pass their own.
 */
export function pageWindow(args: PageArgs, opts: { defaultSize?: number; maxSize?: number; names?: [string, string] } = {}): PageWindow {
  const [pageName, sizeName] = opts.names ?? ['current_page', 'page_size'];
  const max = opts.maxSize ?? 1000;
  const page = args.currentPage ?? 0;
  const size = args.pageSize ?? opts.defaultSize ?? 100;
  if (!Number.isInteger(page) || page < 0) throw invalidParameter(pageName, `${pageName} must be an integer ≥ 0`);
  if (!Number.isInteger(size) || size < 1 || size > max) throw invalidParameter(sizeName, `${sizeName} must be an integer from 1 to ${max}`);
  return { limit: size, offset: page * size };
}

export const page = <T>(data: T[], total: number): Page<T> => ({ object: 'list', total, data });
