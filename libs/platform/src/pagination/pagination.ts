import { ValidationErrorCollector } from '@meridian/domain';

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

export interface Paging {
  page: number;
  pageSize: number;
  offset: number;
}

function parseInteger(raw: unknown): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : NaN;
  if (typeof raw !== 'string' || !/^-?\d{1,12}$/.test(raw.trim())) return NaN;
  return Number(raw);
}

/** Validates `page` (1-based) and `pageSize` (1..max) from a query; out of range → VALIDATION_ERROR. */
export function parsePaging(query: { page?: unknown; pageSize?: unknown }, defaults: { pageSize: number; maxPageSize: number }): Paging {
  const errors = new ValidationErrorCollector();
  const page = parseInteger(query.page) ?? 1;
  const pageSize = parseInteger(query.pageSize) ?? defaults.pageSize;
  if (!Number.isInteger(page) || page < 1) errors.add('page', 'page must be a whole number of at least 1.');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > defaults.maxPageSize) {
    errors.add('pageSize', `pageSize must be a whole number from 1 to ${defaults.maxPageSize}.`);
  }
  errors.throwIfAny();
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
