import { InitiatedByType, SettingKeys } from '@meridian/domain';
import { SettingsService, SYSTEM_INITIATOR } from '@meridian/application';
import { waitFor } from '@meridian/testing';
import { SCHEDULER_LEADER_LOCK } from '../src/leader.service';
import { FakeClock, SchedulerInstance, SchedulerTestBed } from './harness';

const EVERY_MINUTE = { patternType: 'Custom' as const, cronExpression: '* * * * *' };
const at = (iso: string) => new Date(iso);

describe('cron dispatch with two scheduler instances (real PostgreSQL and Redis, fake clock)', () => {
  let bed: SchedulerTestBed;
  const clock = new FakeClock(Date.parse('2030-01-07T09:00:30Z'));

  beforeAll(async () => {
    bed = await SchedulerTestBed.start('dispatch', { MERIDIAN_SCHEDULER_CATCH_UP_MINUTES: '15' });
    bed.script('ok.sh', '#!/bin/sh\necho "run $MERIDIAN_SCHEDULE_EXECUTION_ID"\n');
  });

  afterAll(async () => {
    await bed?.close();
  });

  afterEach(async () => {
    await bed.sql.query(`UPDATE schedule SET is_enabled = false, next_run_time = NULL`);
  });

  const dueTimes = async (scheduleId: string) =>
    (await bed.executionsOf(scheduleId)).map((e) => (e.due_at as Date | null)?.toISOString() ?? null);
  const nextRun = async (scheduleId: string) =>
    (await bed.sql.query(`SELECT next_run_time, last_run_time FROM schedule WHERE id = $1`, [scheduleId])).rows[0];

  it('a schedule due every minute for three minutes runs exactly three times while two schedulers run, and a leader killed mid-way hands over', async () => {
    clock.set('2030-01-07T09:00:30Z');
    const a = await bed.instance({ clock: clock.now });
    const b = await bed.instance({ clock: clock.now });
    const scheduleId = await bed.schedule(
      { name: 'Every minute', ...EVERY_MINUTE, steps: [{ stepIndex: 0, stepType: 'Executable', name: 'ok', executablePath: 'ok.sh' }] },
      clock.now(),
    );
    expect((await nextRun(scheduleId)).next_run_time).toEqual(at('2030-01-07T09:01:00Z'));
    await bed.leaderOf([a, b]);

    const runMinute = async (minute: number) => {
      clock.set(`2030-01-07T09:0${minute}:02Z`);
      const done = await waitFor(async () => {
        const executions = await bed.executionsOf(scheduleId);
        return executions.length === minute && executions.every((e) => e.status === 'Completed') ? executions : null;
      });
      expect(done[minute - 1].due_at).toEqual(at(`2030-01-07T09:0${minute}:00Z`));
    };

    await runMinute(1);

    // Minute 2 comes just as the leader's lock connection is killed: for a moment both may believe they lead.
    const killed = await bed.sql.query(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [SCHEDULER_LEADER_LOCK],
    );
    expect(killed.rows).toEqual([{ killed: true }]);
    await runMinute(2);

    // Kill the leader (its lock connection and everything) and let minute 3 come while the other takes over.
    const current = await bed.leaderOf([a, b]);
    await current.close();
    clock.set('2030-01-07T09:03:02Z');
    const second = current === a ? b : a;
    await waitFor(async () => second.leader.isLeader);
    await runMinute(3);

    // A restarted scheduler joins; more ticks at the same time dispatch nothing more.
    const restarted = await bed.instance({ clock: clock.now });
    await new Promise((r) => setTimeout(r, 400));
    expect(await dueTimes(scheduleId)).toEqual(['2030-01-07T09:01:00.000Z', '2030-01-07T09:02:00.000Z', '2030-01-07T09:03:00.000Z']);
    expect(await nextRun(scheduleId)).toEqual({ next_run_time: at('2030-01-07T09:04:00Z'), last_run_time: at('2030-01-07T09:03:00Z') });
    const executions = await bed.executionsOf(scheduleId);
    expect(executions.map((e) => e.initiated_by_type)).toEqual(['NotSet', 'NotSet', 'NotSet']);
    expect(new Set(executions.map((e) => e.id)).size).toBe(3);

    // Every execution is recorded as an activity that follows it.
    const { rows: activities } = await bed.sql.query(
      `SELECT id, status, target_type, target_operation_type, target_name, initiated_by_type, initiated_by_name FROM activity WHERE id = ANY($1::uuid[])`,
      [executions.map((e) => e.id)],
    );
    expect(activities).toHaveLength(3);
    for (const activity of activities) {
      expect(activity).toMatchObject({
        status: 'Complete',
        target_type: 'ScheduleExecution',
        target_operation_type: 'Execute',
        target_name: 'Every minute',
        initiated_by_type: 'System',
        initiated_by_name: 'Scheduler',
      });
    }
    await second.close();
    await restarted.close();
  });

  it('two dispatchers racing on the same due schedule create one execution per slot (row lock + unique key)', async () => {
    clock.set('2030-01-07T10:00:30Z');
    const a = await bed.instance({ clock: clock.now, autoStart: false });
    const b = await bed.instance({ clock: clock.now, autoStart: false });
    const scheduleId = await bed.schedule({ name: 'Raced', ...EVERY_MINUTE }, clock.now());
    for (const minute of [1, 2, 3]) {
      clock.set(`2030-01-07T10:0${minute}:01Z`);
      const results = (await Promise.all([...Array(10)].map((_, i) => (i % 2 ? a : b).dispatcher.dispatchDue())))
        .flat()
        .filter((r) => r.scheduleId === scheduleId);
      expect(results.filter((r) => r.outcome === 'Queued')).toHaveLength(1);
      // Complete it so the next minute is not skipped as "still active".
      await bed.sql.query(`UPDATE schedule_execution SET status = 'Completed' WHERE schedule_id = $1`, [scheduleId]);
    }
    expect(await dueTimes(scheduleId)).toEqual(['2030-01-07T10:01:00.000Z', '2030-01-07T10:02:00.000Z', '2030-01-07T10:03:00.000Z']);
    await a.close();
    await b.close();
  });

  describe('with one leader ticked by the test', () => {
    let s: SchedulerInstance;

    beforeAll(async () => {
      clock.set('2030-01-08T00:00:00Z');
      s = await bed.instance({ clock: clock.now, autoStart: false });
      await waitFor(async () => s.leader.isLeader);
    });

    afterAll(async () => {
      await s.close();
    });

    it('runs a schedule missed within the catch-up window once, for its latest slot, and skips one missed by more', async () => {
      clock.set('2030-01-08T09:30:00Z');
      const hourly = await bed.schedule({ name: 'Hourly', patternType: 'Custom', cronExpression: '0 * * * *' }, clock.now());
      expect((await nextRun(hourly)).next_run_time).toEqual(at('2030-01-08T10:00:00Z'));

      // Down from 09:30 to 10:10: the 10:00 slot is 10 minutes late, inside the 15-minute window → runs once.
      clock.set('2030-01-08T10:10:00Z');
      await s.tick.tick();
      expect(await dueTimes(hourly)).toEqual(['2030-01-08T10:00:00.000Z']);
      expect((await nextRun(hourly)).next_run_time).toEqual(at('2030-01-08T11:00:00Z'));
      await bed.sql.query(`UPDATE schedule_execution SET status = 'Completed' WHERE schedule_id = $1`, [hourly]);

      // Down until 13:30: 11:00, 12:00 and 13:00 were missed, the latest by 30 minutes → none runs, logged, next is 14:00.
      clock.set('2030-01-08T13:30:00Z');
      await s.tick.tick();
      expect(await dueTimes(hourly)).toEqual(['2030-01-08T10:00:00.000Z']);
      expect(await nextRun(hourly)).toEqual({ next_run_time: at('2030-01-08T14:00:00Z'), last_run_time: at('2030-01-08T10:00:00Z') });
      await waitFor(async () =>
        bed
          .logEntries()
          .some((e) =>
            e.message.includes(
              'Schedule "Hourly": the run due at 2030-01-08T11:00:00.000Z was missed by more than the catch-up window (15 min)',
            ),
          ),
      );
    });

    it('runs an every-minute schedule once (not once per missed minute) after ten minutes down', async () => {
      clock.set('2030-01-08T15:00:30Z');
      const minutely = await bed.schedule({ name: 'Minutely', ...EVERY_MINUTE }, clock.now());
      clock.set('2030-01-08T15:11:20Z');
      await s.tick.tick();
      expect(await dueTimes(minutely)).toEqual(['2030-01-08T15:11:00.000Z']);
      expect((await nextRun(minutely)).next_run_time).toEqual(at('2030-01-08T15:12:00Z'));
    });

    it('skips (and logs) a cron trigger while an execution of the schedule is active but still advances; a manual run always starts one', async () => {
      bed.script('slow.sh', '#!/bin/sh\nsleep 30\n');
      clock.set('2030-01-08T16:00:30Z');
      const busy = await bed.schedule(
        { name: 'Busy', ...EVERY_MINUTE, steps: [{ stepIndex: 0, stepType: 'Executable', name: 'slow', executablePath: 'slow.sh' }] },
        clock.now(),
      );
      clock.set('2030-01-08T16:01:01Z');
      await s.tick.tick();
      await s.tick.tick();
      const [running] = await bed.executionsOf(busy);
      expect(running.status).toBe('InProgress');

      clock.set('2030-01-08T16:02:01Z');
      await s.tick.tick();
      expect(await dueTimes(busy)).toEqual(['2030-01-08T16:01:00.000Z']);
      expect(await nextRun(busy)).toEqual({ next_run_time: at('2030-01-08T16:03:00Z'), last_run_time: at('2030-01-08T16:01:00Z') });
      await waitFor(async () =>
        bed
          .logEntries()
          .some(
            (e) =>
              e.level === 'Warning' &&
              e.message ===
                `Schedule "Busy": the cron trigger due at 2030-01-08T16:02:00.000Z is skipped because execution ${running.id} is still InProgress; next run at 2030-01-08T16:03:00.000Z.`,
          ),
      );

      const manual = await s.executions.startManual(busy, {
        type: InitiatedByType.User,
        id: '6b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b',
        name: 'Ada',
      });
      expect(manual).toMatchObject({
        status: 'Queued',
        initiatedByType: 'User',
        initiatedByName: 'Ada',
        totalSteps: 1,
        currentStepIndex: 0,
      });
      expect(manual.steps).toEqual([expect.objectContaining({ stepIndex: 0, name: 'slow', stepType: 'Executable', status: 'Pending' })]);
      expect((await bed.executionsOf(busy)).map((e) => e.due_at)).toEqual([at('2030-01-08T16:01:00Z'), null]);

      for (const e of await bed.executionsOf(busy)) await s.executions.cancel(e.id, SYSTEM_INITIATOR);
      await s.tick.tick();
      await waitFor(async () => s.runner.runningProcessIds.length === 0);
    });

    it('runs disabled and Manual schedules on demand', async () => {
      const manualOnly = await bed.schedule({ name: 'Manual only', triggerType: 'Manual', isEnabled: false });
      const view = await s.executions.startManual(manualOnly, {
        type: InitiatedByType.ApiKey,
        id: '7b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b',
        name: 'CI key',
      });
      expect(view).toMatchObject({
        scheduleName: 'Manual only',
        status: 'Queued',
        initiatedByType: 'ApiKey',
        initiatedByName: 'CI key',
        totalSteps: 0,
        steps: [],
      });
      await s.tick.tick();
      expect((await bed.executionsOf(manualOnly))[0].status).toBe('Completed');
      await expect(s.executions.startManual('00000000-0000-4000-8000-000000000000', SYSTEM_INITIATOR)).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    });

    it('holds cron dispatch in maintenance mode and pauses queued executions until it ends', async () => {
      const settings = s.app.get(SettingsService);
      clock.set('2030-01-08T18:00:30Z');
      const nightly = await bed.schedule({ name: 'Held', ...EVERY_MINUTE }, clock.now());
      const adhoc = await bed.schedule({ name: 'Adhoc', triggerType: 'Manual', isEnabled: false });
      await settings.set(SettingKeys.MaintenanceEnabled, true, SYSTEM_INITIATOR);

      const queued = await s.executions.startManual(adhoc, SYSTEM_INITIATOR);
      clock.set('2030-01-08T18:01:05Z');
      await s.tick.tick();
      await s.tick.tick();
      expect((await bed.executionsOf(adhoc)).map((e) => e.status)).toEqual(['Paused']);
      expect(await dueTimes(nightly)).toEqual([]);
      expect((await nextRun(nightly)).next_run_time).toEqual(at('2030-01-08T18:01:00Z'));
      expect((await s.executions.active()).map((e) => e.id)).toContain(queued.id);

      await settings.set(SettingKeys.MaintenanceEnabled, false, SYSTEM_INITIATOR);
      clock.set('2030-01-08T18:02:30Z');
      await s.tick.tick();
      await s.tick.tick();
      expect((await bed.executionsOf(adhoc)).map((e) => e.status)).toEqual(['Completed']);
      // The held trigger catches up once (its latest slot, 18:02, is inside the window).
      expect(await dueTimes(nightly)).toEqual(['2030-01-08T18:02:00.000Z']);
      expect((await nextRun(nightly)).next_run_time).toEqual(at('2030-01-08T18:03:00Z'));
    });

    it('sets next_run_time aside when a stored pattern is invalid, and logs it', async () => {
      clock.set('2030-01-08T20:00:30Z');
      const broken = await bed.schedule({
        name: 'Broken',
        patternType: 'Custom',
        cronExpression: '* * * * *',
        nextRunTime: at('2030-01-08T20:00:00Z'),
      });
      await bed.sql.query(`UPDATE schedule SET cron_expression = 'not a cron' WHERE id = $1`, [broken]);
      await s.tick.tick();
      expect(await dueTimes(broken)).toEqual([]);
      expect((await nextRun(broken)).next_run_time).toBeNull();
      await waitFor(async () =>
        bed
          .logEntries()
          .some((e) => e.level === 'Error' && e.message.startsWith('Schedule "Broken"') && e.message.includes('invalid pattern')),
      );
    });
  });
});
