/** The directions a list can be sorted in (`?sortDirection=`), ascending first. */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];
