import { MeridianClient } from '@meridian/api-client';
import { createTestDatabase, createTestEnvironment, processAlive, TestDatabase, TestEnvironment, waitFor } from '@meridian/testing';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { apiClient } from './api';
import { freePort, ServiceProcess, startService, waitForHttp } from './processes';

describe('two scheduler processes + web + worker (real processes)', () => {
  let db: TestDatabase;
  let env: TestEnvironment;
  let sql: Client;
  let scripts: string;
  let base: string;
  let api: MeridianClient;
  let web: ServiceProcess;
  let worker: ServiceProcess;
  const schedulers: ServiceProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('e2esched');
    scripts = mkdtempSync(join(tmpdir(), 'meridian-e2e-scripts-'));
    // Records which scheduler process ran it (its parent) — the leader.
    writeFileSync(
      join(scripts, 'stamp.sh'),
      '#!/bin/sh\necho "$PPID" > "ran-$MERIDIAN_SCHEDULE_EXECUTION_ID.ppid"\necho "stamped by $PPID"\n',
    );
    writeFileSync(join(scripts, 'sleeper.sh'), '#!/bin/sh\nsleep 120 &\necho $! > "child-$MERIDIAN_SCHEDULE_EXECUTION_ID.pid"\nwait\n');
    chmodSync(join(scripts, 'stamp.sh'), 0o755);
    chmodSync(join(scripts, 'sleeper.sh'), 0o755);
    const port = await freePort();
    env = createTestEnvironment(db.url, { PORT: String(port), MERIDIAN_SCRIPTS_ROOT: scripts });
    base = `http://127.0.0.1:${port}`;
    api = apiClient(base, env.bootstrapKey);
    web = startService('web', env.env);
    worker = startService('worker', env.env);
    schedulers.push(startService('scheduler', env.env), startService('scheduler', env.env));
    await waitForHttp(`${base}/api/v1/health/ready`);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    for (const p of [web, worker, ...schedulers]) await p?.stop();
    await env?.cleanup();
    await db?.drop();
    if (scripts) rmSync(scripts, { recursive: true, force: true });
  });

  const execution = async (id: string) => (await api.GET('/api/v1/schedule-executions/{id}', { params: { path: { id } } })).data!;
  const cancelExecution = (id: string) => api.POST('/api/v1/schedule-executions/{id}/cancel', { params: { path: { id } } });
  const runSchedule = (id: string) => api.POST('/api/v1/schedules/{id}/run', { params: { path: { id } } });

  const liveSchedulers = () => schedulers.filter((p) => p.child.exitCode === null && p.child.signalCode === null);

  it('dispatches each due trigger exactly once across two schedulers, and a killed leader hands over without a missed or doubled run', async () => {
    // A yearly cron that will not fire by itself during the test: the test makes it due by moving next_run_time into the past.
    const created = await api.POST('/api/v1/schedules', {
      body: {
        name: 'Exactly once',
        triggerType: 'Cron',
        patternType: 'Custom',
        cronExpression: '0 0 1 1 *',
        isEnabled: true,
        steps: [{ stepIndex: 0, stepType: 'Executable', name: 'stamp', executablePath: 'stamp.sh' }],
      },
    });
    expect(created.response.status).toBe(201);
    const scheduleId = created.data!.id;

    const trigger = async (expected: number) => {
      await sql.query(`UPDATE schedule SET next_run_time = now() - interval '2 seconds' WHERE id = $1`, [scheduleId]);
      const executions = await waitFor(async () => {
        const page = (await api.GET('/api/v1/schedule-executions', { params: { query: { scheduleId, sortDescending: false } } })).data!;
        return page.totalCount === expected && page.items.every((e) => e.status === 'Completed') ? page.items : null;
      }, 30_000);
      const {
        rows: [schedule],
      } = await sql.query(`SELECT next_run_time > now() AS future FROM schedule WHERE id = $1`, [scheduleId]);
      expect(schedule.future).toBe(true);
      const last = executions[expected - 1];
      expect(last).toMatchObject({ initiatedByType: 'NotSet', status: 'Completed' });
      return Number(readFileSync(join(scripts, `ran-${last.id}.ppid`), 'utf8'));
    };

    const firstLeader = await trigger(1);
    expect(schedulers.map((p) => p.child.pid)).toContain(firstLeader);
    expect(await trigger(2)).toBe(firstLeader);

    // Kill the leader process outright and make the schedule due at once: the other scheduler takes over.
    const leader = schedulers.find((p) => p.child.pid === firstLeader)!;
    await leader.stop('SIGKILL');
    const secondLeader = await trigger(3);
    expect(secondLeader).not.toBe(firstLeader);
    expect(liveSchedulers().map((p) => p.child.pid)).toContain(secondLeader);

    // A restarted scheduler joins; nothing more is dispatched for the same due times.
    schedulers.push(startService('scheduler', env.env));
    await new Promise((r) => setTimeout(r, 3_000));
    const { rows } = await sql.query(`SELECT due_at FROM schedule_execution WHERE schedule_id = $1 ORDER BY due_at`, [scheduleId]);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => (r.due_at as Date).toISOString())).size).toBe(3);
  });

  it('cancelling a running execution through the API kills its process in the scheduler process and it stays Cancelled', async () => {
    const created = await api.POST('/api/v1/schedules', {
      body: {
        name: 'Cancel me',
        triggerType: 'Manual',
        steps: [{ stepIndex: 0, stepType: 'Executable', name: 'sleeper', executablePath: 'sleeper.sh' }],
      },
    });
    const run = await runSchedule(created.data!.id);
    expect(run.response.status).toBe(202);
    const id = run.data!.id;
    const childFile = join(scripts, `child-${id}.pid`);
    await waitFor(async () => existsSync(childFile) && readFileSync(childFile, 'utf8').trim() !== '', 30_000);
    const {
      rows: [step],
    } = await sql.query(`SELECT process_id FROM schedule_execution_step WHERE execution_id = $1`, [id]);
    const pids = [step.process_id as number, Number(readFileSync(childFile, 'utf8'))];
    expect(pids.every(processAlive)).toBe(true);

    const cancelled = await cancelExecution(id);
    expect({ status: cancelled.response.status, body: cancelled.data }).toMatchObject({ status: 200, body: { status: 'Cancelled' } });
    await waitFor(async () => pids.every((p) => !processAlive(p)), 30_000);
    await waitFor(async () => (await execution(id)).steps[0].status === 'Cancelled', 30_000);
    await new Promise((r) => setTimeout(r, 2_500));
    const after = await execution(id);
    expect(after).toMatchObject({ status: 'Cancelled', completedAt: cancelled.data!.completedAt });
    expect((await cancelExecution(id)).response.status).toBe(400);
  });

  it('runs a RunProfile step as an activity on the worker and follows it to its end', async () => {
    const {
      rows: [system],
    } = await sql.query(`INSERT INTO connected_system (name, connector_type, settings) VALUES ('HR', 'File', '{}') RETURNING id`);
    const {
      rows: [profile],
    } = await sql.query(
      `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Full sync', 'FullSynchronisation') RETURNING id`,
      [system.id],
    );
    const created = await api.POST('/api/v1/schedules', {
      body: {
        name: 'With a run profile',
        triggerType: 'Manual',
        steps: [
          { stepIndex: 0, stepType: 'RunProfile', name: 'HR sync', connectedSystemId: system.id, runProfileId: profile.id },
          { stepIndex: 1, stepType: 'Executable', name: 'after', executablePath: 'stamp.sh' },
        ],
      },
    });
    expect(created.response.status).toBe(201);
    const run = (await runSchedule(created.data!.id)).data!;
    const finished = await waitFor(async () => {
      const body = await execution(run.id);
      return ['Completed', 'Failed'].includes(body.status) ? body : null;
    }, 30_000);
    // The worker runs the synchronisation (an empty system: nothing to do), the step follows its activity to the end and the next step runs.
    const activity = (await api.GET('/api/v1/activities/{id}', { params: { path: { id: finished.steps[0].activityId! } } })).data!;
    expect(activity).toMatchObject({
      status: 'Complete',
      parentActivityId: run.id,
      targetType: 'ConnectedSystemRunProfile',
      objectsProcessed: 0,
    });
    expect(finished.steps).toEqual([
      expect.objectContaining({
        name: 'HR sync',
        status: 'Completed',
        activityId: activity.id,
        activityStatus: 'Complete',
        taskId: activity.id,
      }),
      expect.objectContaining({ name: 'after', status: 'Completed' }),
    ]);
    expect(finished).toMatchObject({ status: 'Completed' });
  });
});
