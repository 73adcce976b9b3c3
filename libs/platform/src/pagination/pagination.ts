/** The paginated list envelope of spec 2.1. */
export interface PagedResult<T> {
  items: T[];
  totalCount: number;
  page: number;
  pageSize: number;
  totalPages: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/** `page` and `pageSize` of a list query, validated by its DTO. */
export interface PageQuery {
  page?: number;
  pageSize?: number;
}

export interface Paging {
  page: number;
  pageSize: number;
  offset: number;
}

/**
 * The page a list query asks for. Its DTO has validated `page` (1-based) and `pageSize` (1..the endpoint's
 * maximum) once; absent values take the first page and the endpoint's default size.
 */
export function pagingOf(query: PageQuery, defaultPageSize: number): Paging {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? defaultPageSize;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export function pageOf<T>(items: T[], totalCount: number, paging: Paging): PagedResult<T> {
  const totalPages = Math.ceil(totalCount / paging.pageSize);
  return {
    items,
    totalCount,
    page: paging.page,
    pageSize: paging.pageSize,
    totalPages,
    hasNextPage: paging.page < totalPages,
    hasPreviousPage: paging.page > 1,
  };
}
