import type { SqlRunner } from './sql-runner';

/** The window of a page as the lists read it (the platform's Paging has these two). */
export interface PageWindow {
  offset: number;
  pageSize: number;
}

/**
 * How far past the start of the requested page a list counts: totalCount is exact up to
 * offset + LIST_COUNT_CAP matches; beyond that it is that bound and totalCountIsExact is false
 * (docs/metaverse.md "Counts"). hasNextPage is right either way, and a count reads a bounded number of
 * index entries (or rows) however many match.
 */
export const LIST_COUNT_CAP = 1_000;

export interface BoundedCount {
  totalCount: number;
  totalCountIsExact: boolean;
}

/**
 * The total of a list whose page was read in index order. A short page ends the list, so it needs no
 * count; otherwise `fromWhere` (`<from> WHERE …`, selecting nothing) is counted up to the bound.
 */
export async function boundedCount(
  runner: SqlRunner,
  fromWhere: string,
  params: unknown[],
  paging: PageWindow,
  rowsOnPage: number,
  cap = LIST_COUNT_CAP,
): Promise<BoundedCount> {
  if ((rowsOnPage > 0 && rowsOnPage < paging.pageSize) || (rowsOnPage === 0 && paging.offset === 0)) {
    return { totalCount: paging.offset + rowsOnPage, totalCountIsExact: true };
  }
  const limit = paging.offset + cap;
  const [{ count }] = await runner.query<Array<{ count: number }>>(
    `SELECT count(*)::int AS count FROM (SELECT 1 FROM ${fromWhere} LIMIT ${limit + 1}) s`,
    params,
  );
  return { totalCount: Math.min(count, limit), totalCountIsExact: count <= limit };
}

/**
 * For a filter whose matches do not come in id order from an index: at most offset + cap + 1 matching
 * ids in any order (one pass that stops early), with the page cut from them in id order. `idSql` selects
 * one column named `id`. Answers null when more than offset + cap match: the matches are then dense
 * enough that a walk in id order reaches the page within a bounded number of entries, and the caller
 * reads the page that way with totalCount at the bound.
 */
export async function firstMatches(
  runner: SqlRunner,
  idSql: string,
  params: unknown[],
  paging: PageWindow,
  cap = LIST_COUNT_CAP,
): Promise<{ pageIds: string[]; totalCount: number } | null> {
  const limit = paging.offset + cap;
  const rows = await runner.query<Array<{ total: number; id: string | null }>>(
    `WITH m AS MATERIALIZED (${idSql} LIMIT ${limit + 1}),
          page AS (SELECT id FROM m ORDER BY id LIMIT ${paging.pageSize} OFFSET ${paging.offset})
     SELECT (SELECT count(*)::int FROM m) AS total, page.id
       FROM (SELECT 1) one LEFT JOIN page ON true
      ORDER BY page.id`,
    params,
  );
  const total = rows[0]?.total ?? 0;
  if (total > limit) return null;
  return { pageIds: rows.map((r) => r.id).filter((id): id is string => id !== null), totalCount: total };
}
