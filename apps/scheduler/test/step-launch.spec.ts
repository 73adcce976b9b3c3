import { InitiatedByType, StepStatus } from '@meridian/domain';
import { StepLauncher } from '@meridian/application';
import { JobQueue } from '@meridian/jobs';
import { ExecutionStepRecord, RunningExecutionRecord } from '@meridian/persistence';
import { waitFor } from '@meridian/testing';
import { SchedulerInstance, SchedulerTestBed } from './harness';

const API_KEY = { type: InitiatedByType.ApiKey, id: '7b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b', name: 'CI key' };

/** Starting a RunProfile step: its run activity is created and linked to the step in one transaction, queued after the commit. */
describe('launching a RunProfile step (real PostgreSQL and Redis)', () => {
  let bed: SchedulerTestBed;
  let s: SchedulerInstance;
  let profile: { connectedSystemId: number; runProfileId: number };

  beforeAll(async () => {
    bed = await SchedulerTestBed.start('step_launch');
    s = await bed.instance();
    await waitFor(async () => s.leader.isLeader);
    profile = await bed.runProfile('HR');
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await bed?.close();
  });

  /** A Manual schedule of one RunProfile step, 'HR sync'. */
  const scheduleOfOneRun = (name: string) =>
    bed.schedule({
      name,
      triggerType: 'Manual',
      isEnabled: false,
      steps: [{ stepIndex: 0, stepType: 'RunProfile', name: 'HR sync', ...profile }],
    });
  const runsOfProfile = async () =>
    (
      await bed.sql.query(`SELECT id, status, error_message FROM activity WHERE connected_system_run_profile_id = $1`, [
        profile.runProfileId,
      ])
    ).rows;

  it('creates no run for a step that ended before its run was created', async () => {
    const scheduleId = await scheduleOfOneRun('Cancelled before launch');
    // An execution the engine does not run (Cancelled), whose step the launcher still believes Queued.
    const {
      rows: [execution],
    } = await bed.sql.query(
      `INSERT INTO schedule_execution (schedule_id, schedule_name, status, total_steps, initiated_by_type, started_at, completed_at)
       VALUES ($1, 'Cancelled before launch', 'Cancelled', 1, 'ApiKey', now(), now()) RETURNING id`,
      [scheduleId],
    );
    const {
      rows: [step],
    } = await bed.sql.query(
      `INSERT INTO schedule_execution_step (execution_id, step_index, name, step_type, execution_mode, connected_system_id, run_profile_id, status, completed_at)
       VALUES ($1, 0, 'HR sync', 'RunProfile', 'Sequential', $2, $3, 'Cancelled', now()) RETURNING id`,
      [execution.id, profile.connectedSystemId, profile.runProfileId],
    );
    const before = (await runsOfProfile()).length;
    const record: RunningExecutionRecord = {
      id: execution.id,
      scheduleId,
      scheduleName: 'Cancelled before launch',
      status: 'InProgress' as RunningExecutionRecord['status'],
      currentStepIndex: 0,
      initiatedByType: API_KEY.type,
      initiatedById: API_KEY.id,
      initiatedByName: API_KEY.name,
    };
    const stale: ExecutionStepRecord = {
      id: step.id,
      executionId: execution.id,
      stepId: null,
      stepIndex: 0,
      name: 'HR sync',
      stepType: 'RunProfile',
      continueOnFailure: false,
      timeoutSeconds: null,
      ...profile,
      status: StepStatus.Queued,
      startedAt: new Date(),
      errorMessage: null,
      activityId: null,
    };

    await s.app.get(StepLauncher).launch(record, stale, new Date());

    expect((await runsOfProfile()).length).toBe(before);
    expect((await bed.stepsOf(execution.id)).map((st) => [st.status, st.activity_id, st.error_message])).toEqual([
      ['Cancelled', null, null],
    ]);
  });

  it('fails the run and its step together, with the reason, when the queue cannot take the job', async () => {
    const enqueue = jest.spyOn(s.app.get(JobQueue), 'enqueue').mockRejectedValueOnce(new Error('Redis is unreachable'));
    const scheduleId = await scheduleOfOneRun('Queue down');
    const view = await s.executions.startManual(scheduleId, API_KEY);
    const execution = await bed.waitForExecution(view.id, ['Completed', 'Failed', 'Cancelled']);
    expect(enqueue).toHaveBeenCalled();
    expect(execution.status).toBe('Failed');

    const [step] = await bed.stepsOf(view.id);
    expect(step).toMatchObject({
      status: 'Failed',
      error_message: 'the run profile could not start: the run could not be queued: Redis is unreachable',
    });
    const {
      rows: [run],
    } = await bed.sql.query(`SELECT status, error_message, parent_activity_id, completed FROM activity WHERE id = $1`, [step.activity_id]);
    expect(run).toMatchObject({
      status: 'FailedWithError',
      error_message: 'The run could not be queued: Redis is unreachable',
      parent_activity_id: view.id,
    });
    expect(run.completed).not.toBeNull();
  });

  it('creates, links and queues the run of a step that is still Queued', async () => {
    const scheduleId = await scheduleOfOneRun('Queued run');
    const view = await s.executions.startManual(scheduleId, API_KEY);
    const step = await waitFor(async () => {
      const [st] = await bed.stepsOf(view.id);
      return st?.activity_id ? st : null;
    });
    expect(step).toMatchObject({ status: 'Queued', task_id: step.activity_id });
    const {
      rows: [run],
    } = await bed.sql.query(`SELECT status, parent_activity_id FROM activity WHERE id = $1`, [step.activity_id]);
    expect(run).toEqual({ status: 'InProgress', parent_activity_id: view.id });
    await s.executions.cancel(view.id, API_KEY);
  });
});
