import { ActivityStatus, ActivityTargetType, SortDirection } from '@meridian/domain';
import { returnedRows, SqlRunner, WriteResult } from '../sql/sql-runner';

/** One page of activity ids in list order, and how many activities match. */
export interface ActivityIdPage {
  ids: string[];
  totalCount: number;
}

export interface ActivityListFilter {
  /** Contains, ignoring case, in target name, target type or operation. */
  search: string | null;
  /** A column of SORTABLE_ACTIVITY_COLUMNS. */
  sortBy: ActivitySortKey;
  direction: SortDirection;
  offset: number;
  pageSize: number;
}

/** The list orders of GET /activities, by the name the API gives them. */
export const SORTABLE_ACTIVITY_COLUMNS = {
  created: 'a.created',
  executed: 'a.executed',
  status: 'a.status',
  type: 'a.target_type',
  target: 'a.target_name',
} as const;

export type ActivitySortKey = keyof typeof SORTABLE_ACTIVITY_COLUMNS;

/** A name and how often it occurs among a run's execution items. */
export interface ExecutionItemTally {
  name: string;
  count: number;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Activity rows read and changed by the API (the runners' side is RunStore). */
export class ActivityStore {
  constructor(private readonly db: SqlRunner) {}

  /** Ids of one page of activities in the requested order, and the number that match. */
  async page(filter: ActivityListFilter): Promise<ActivityIdPage> {
    const params: unknown[] = [];
    let where = '';
    if (filter.search) {
      params.push(`%${escapeLike(filter.search)}%`);
      where = `WHERE a.target_name ILIKE $1 OR a.target_type ILIKE $1 OR a.target_operation_type ILIKE $1`;
    }
    const direction = filter.direction.toUpperCase();
    const order = `${SORTABLE_ACTIVITY_COLUMNS[filter.sortBy]} ${direction} NULLS LAST, a.id ${direction}`;
    const [{ count }] = await this.db.query<Array<{ count: number }>>(`SELECT count(*)::int AS count FROM activity a ${where}`, params);
    const rows = await this.db.query<Array<{ id: string }>>(
      `SELECT a.id FROM activity a ${where} ORDER BY ${order} LIMIT ${filter.pageSize} OFFSET ${filter.offset}`,
      params,
    );
    return { ids: rows.map((r) => r.id), totalCount: count };
  }

  /** How many child activities each of the given activities has (absent: none). */
  async childCounts(ids: readonly string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows = await this.db.query<Array<{ parent: string; count: number }>>(
      `SELECT parent_activity_id AS parent, count(*)::int AS count FROM activity WHERE parent_activity_id = ANY($1::uuid[]) GROUP BY parent_activity_id`,
      [ids],
    );
    return new Map(rows.map((r) => [r.parent, r.count]));
  }

  /**
   * Requests cancellation of an InProgress activity of one of `targetTypes`, in one statement: it is
   * flagged, and one that no worker has claimed yet is Cancelled at once with `message`. Answers whether
   * an activity was flagged.
   */
  async requestCancel(id: string, targetTypes: readonly ActivityTargetType[], message: string): Promise<boolean> {
    const result = await this.db.query<WriteResult<{ id: string }>>(
      `UPDATE activity SET cancel_requested = true,
              status = CASE WHEN claimed_at IS NULL THEN '${ActivityStatus.Cancelled}' ELSE status END,
              completed = CASE WHEN claimed_at IS NULL THEN now() ELSE completed END,
              message = CASE WHEN claimed_at IS NULL THEN $2 ELSE message END
        WHERE id = $1 AND status = '${ActivityStatus.InProgress}' AND target_type = ANY($3::text[])
        RETURNING id`,
      [id, message, targetTypes],
    );
    return returnedRows(result).length > 0;
  }

  /** Marks a running activity alive (the run's own session may be busy with a long statement). */
  async heartbeat(id: string): Promise<void> {
    await this.db.query(`UPDATE activity SET heartbeat_at = now() WHERE id = $1 AND status = '${ActivityStatus.InProgress}'`, [id]);
  }

  /**
   * Sums the `Outcome:count` pairs of a run's execution items by outcome, where the items are (their
   * (activity_id, seq) index), never loading them; a malformed pair is skipped.
   */
  async outcomeTallies(activityId: string): Promise<ExecutionItemTally[]> {
    const rows = await this.db.query<Array<{ name: string; count: string }>>(
      `SELECT split_part(pair, ':', 1) AS name, sum(split_part(pair, ':', 2)::bigint)::bigint AS count
         FROM (SELECT btrim(p) AS pair
                 FROM activity_execution_item i CROSS JOIN LATERAL regexp_split_to_table(i.outcome_summary, ',') AS p
                WHERE i.activity_id = $1 AND i.outcome_summary IS NOT NULL) s
        WHERE pair ~ '^[A-Za-z]+:[0-9]{1,9}$'
        GROUP BY 1 ORDER BY 1`,
      [activityId],
    );
    return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
  }

  /** How many of a run's execution items failed, by error type. */
  async errorTallies(activityId: string): Promise<ExecutionItemTally[]> {
    const rows = await this.db.query<Array<{ name: string; count: string }>>(
      `SELECT error_type AS name, count(*)::bigint AS count FROM activity_execution_item
        WHERE activity_id = $1 AND error_type IS NOT NULL GROUP BY error_type ORDER BY error_type`,
      [activityId],
    );
    return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
  }
}
