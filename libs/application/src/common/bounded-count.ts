// The bounded list counts live with the other SQL in @meridian/persistence; this keeps the lists of other areas importing them here.
export { boundedCount, firstMatches, LIST_COUNT_CAP } from '@meridian/persistence';
export type { BoundedCount, SqlRunner } from '@meridian/persistence';
