import { ActivityStatus } from '@meridian/domain';
import { dataSourceOptions } from '@meridian/persistence';
import { createTestDatabase, TestDatabase } from '@meridian/testing';
import { DataSource } from 'typeorm';
import { RunProfileHandler } from '../src/handlers/run-profile.handler';

describe('RunProfileHandler', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let handler: RunProfileHandler;

  beforeAll(async () => {
    db = await createTestDatabase('worker');
    ds = await new DataSource(dataSourceOptions(db.url)).initialize();
    handler = new RunProfileHandler(ds);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  async function activity(status = ActivityStatus.InProgress): Promise<string> {
    const [row] = await ds.query(
      `INSERT INTO activity (status, target_type, target_operation_type, initiated_by_type) VALUES ($1, 'ConnectedSystemRunProfile', 'Execute', 'System') RETURNING id`, [status]);
    return row.id;
  }

  it('claims an activity once and ends it honestly as not yet executable', async () => {
    const id = await activity();
    expect(await handler.handle({ activityId: id })).toEqual({ claimed: true });
    expect(await handler.handle({ activityId: id })).toEqual({ claimed: false });
    const [row] = await ds.query(`SELECT status, error_message, claimed_by, completed FROM activity WHERE id = $1`, [id]);
    expect(row.status).toBe(ActivityStatus.FailedWithError);
    expect(row.error_message).toMatch(/synchronisation engine is not available/);
    expect(row.claimed_by).toMatch(/:\d+$/);
    expect(row.completed).not.toBeNull();
  });

  it('never touches a cancelled activity', async () => {
    const id = await activity(ActivityStatus.Cancelled);
    expect(await handler.handle({ activityId: id })).toEqual({ claimed: false });
    const [row] = await ds.query(`SELECT status FROM activity WHERE id = $1`, [id]);
    expect(row.status).toBe(ActivityStatus.Cancelled);
  });
});
