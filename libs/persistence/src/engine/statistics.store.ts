import type { BulkSession } from './bulk-session';

/** The tables an engine run reads with keyset pages and joins, whose planner statistics must follow bulk writes. */
export const ENGINE_TABLES = ['connected_system_object', 'metaverse_object', 'metaverse_object_lookup', 'pending_export'] as const;
export type EngineTable = (typeof ENGINE_TABLES)[number];

/** Rows changed since the last ANALYZE that make a table's statistics stale: 10 % of its rows, and at least this many. */
const MIN_CHANGED_ROWS = 1000;

/**
 * Planner statistics of the engine's tables. A run writes hundreds of thousands of rows in minutes; until
 * the table is analysed again the planner believes the old row counts, and a keyset page (`id > $after
 * ORDER BY id LIMIT n`) becomes a scan of everything after the cursor followed by a sort, once per page.
 * Autovacuum analyses eventually (and may be switched off); runs do not wait for it.
 */
export class StatisticsStore {
  constructor(private readonly s: BulkSession) {}

  /** Analyses the given tables whose statistics are stale (cheap: ANALYZE reads a fixed-size sample); returns the tables analysed. */
  async refresh(tables: readonly EngineTable[] = ENGINE_TABLES): Promise<EngineTable[]> {
    const stale = await this.s.rows<{ name: EngineTable }>(
      `SELECT s.relname AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE s.schemaname = current_schema() AND s.relname = ANY($1::text[])
          AND s.n_mod_since_analyze >= greatest($2, 0.1 * greatest(s.n_live_tup, c.reltuples))`,
      [tables, MIN_CHANGED_ROWS],
    );
    for (const { name } of stale) {
      // The name comes from ENGINE_TABLES (the query only returns names it was given).
      if ((ENGINE_TABLES as readonly string[]).includes(name)) await this.s.count(`ANALYZE ${name}`);
    }
    return stale.map((r) => r.name);
  }
}
