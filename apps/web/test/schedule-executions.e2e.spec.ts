import { processAlive, waitFor } from '@meridian/testing';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startScheduleRunner, startWebApp, WebHarness } from './harness';

const MISSING = '6b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';

describe('schedule executions API (spec 4.5) and POST /schedules/{id}/run', () => {
  let h: WebHarness;
  let sql: Client;
  let scripts: string;
  const admin = () => ({ 'X-Api-Key': h.adminKey });

  beforeAll(async () => {
    scripts = mkdtempSync(join(tmpdir(), 'meridian-web-scripts-'));
    writeFileSync(join(scripts, 'sleeper.sh'), '#!/bin/sh\nsleep 60 &\necho $! > "child-$MERIDIAN_SCHEDULE_EXECUTION_ID.pid"\nwait\n');
    writeFileSync(join(scripts, 'ok.sh'), '#!/bin/sh\necho ok\n');
    chmodSync(join(scripts, 'sleeper.sh'), 0o755);
    chmodSync(join(scripts, 'ok.sh'), 0o755);
    h = await startWebApp({ MERIDIAN_SCRIPTS_ROOT: scripts });
    sql = new Client({ connectionString: h.db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await h?.close();
    rmSync(scripts, { recursive: true, force: true });
  });

  const createSchedule = async (body: Record<string, unknown>) =>
    (await h.http.post('/api/v1/schedules').set(admin()).send(body).expect(201)).body as { id: string; name: string };
  const run = async (scheduleId: string) => (await h.http.post(`/api/v1/schedules/${scheduleId}/run`).set(admin()).expect(202)).body;

  describe('manual run', () => {
    it('starts one Queued execution attributed to the API key, with its steps, for Manual and disabled Cron schedules alike', async () => {
      const manual = await createSchedule({
        name: 'Manual run',
        triggerType: 'Manual',
        steps: [
          { stepIndex: 0, stepType: 'Executable', name: 'a', executablePath: 'ok.sh' },
          { stepIndex: 1, stepType: 'Executable', name: 'b', executablePath: 'ok.sh' },
          { stepIndex: 1, stepType: 'Executable', name: 'c', executablePath: 'ok.sh' },
        ],
      });
      const execution = await run(manual.id);
      expect(execution).toMatchObject({
        scheduleId: manual.id,
        scheduleName: 'Manual run',
        status: 'Queued',
        currentStepIndex: 0,
        totalSteps: 2,
        startedAt: null,
        completedAt: null,
        initiatedByType: 'ApiKey',
        errorMessage: null,
      });
      expect(execution.initiatedByName).toBeTruthy();
      expect(execution.steps).toEqual([
        {
          stepIndex: 0,
          name: 'a',
          stepType: 'Executable',
          executionMode: 'Sequential',
          connectedSystemId: null,
          status: 'Pending',
          taskId: null,
          startedAt: null,
          completedAt: null,
          errorMessage: null,
          activityId: null,
          activityStatus: null,
        },
        expect.objectContaining({ stepIndex: 1, name: 'b', executionMode: 'Sequential', status: 'Pending' }),
        expect.objectContaining({ stepIndex: 1, name: 'c', executionMode: 'ParallelWithPrevious', status: 'Pending' }),
      ]);
      // Always one more, even while one is active.
      const again = await run(manual.id);
      expect(again.id).not.toBe(execution.id);

      const cron = await createSchedule({
        name: 'Disabled cron',
        triggerType: 'Cron',
        patternType: 'Custom',
        cronExpression: '0 3 * * *',
        isEnabled: false,
      });
      expect((await run(cron.id)).status).toBe('Queued');

      const activity = (await h.http.get(`/api/v1/activities/${execution.id}`).set(admin()).expect(200)).body;
      expect(activity).toMatchObject({
        targetType: 'ScheduleExecution',
        targetOperationType: 'Execute',
        targetName: 'Manual run',
        status: 'InProgress',
        initiatedByType: 'ApiKey',
      });
    });

    it('answers 404 for an unknown schedule and 400 for a malformed id', async () => {
      const missing = await h.http.post(`/api/v1/schedules/${MISSING}/run`).set(admin()).expect(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      const bad = await h.http.post('/api/v1/schedules/not-a-uuid/run').set(admin()).expect(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('reading', () => {
    let scheduleId: string;
    const ids: string[] = [];

    beforeAll(async () => {
      scheduleId = (await createSchedule({ name: 'Listed', triggerType: 'Manual' })).id;
      for (let i = 0; i < 3; i++) ids.push((await run(scheduleId)).id);
      // Distinct, known times and states for sorting.
      await sql.query(`UPDATE schedule_execution SET queued_at = $2, started_at = $3, completed_at = $4, status = $5 WHERE id = $1`, [
        ids[0],
        '2030-01-01T10:00:00Z',
        '2030-01-01T10:00:05Z',
        '2030-01-01T10:00:09Z',
        'Completed',
      ]);
      await sql.query(`UPDATE schedule_execution SET queued_at = $2, started_at = $3, status = $4 WHERE id = $1`, [
        ids[1],
        '2030-01-01T11:00:00Z',
        '2030-01-01T11:00:01Z',
        'InProgress',
      ]);
      await sql.query(`UPDATE schedule_execution SET queued_at = $2 WHERE id = $1`, [ids[2], '2030-01-01T12:00:00Z']);
    });

    const list = async (query: string) =>
      (await h.http.get(`/api/v1/schedule-executions?scheduleId=${scheduleId}${query}`).set(admin()).expect(200)).body;

    it('lists summaries newest first by default, in the paginated envelope with pageSize 20', async () => {
      const page = await list('');
      expect(page).toMatchObject({ totalCount: 3, page: 1, pageSize: 20, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
      expect(page.items.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(page.items[0].steps).toBeUndefined();
      expect(Object.keys(page.items[0]).sort()).toEqual([
        'completedAt',
        'currentStepIndex',
        'errorMessage',
        'id',
        'initiatedById',
        'initiatedByName',
        'initiatedByType',
        'queuedAt',
        'scheduleId',
        'scheduleName',
        'startedAt',
        'status',
        'totalSteps',
      ]);
    });

    it('sorts by queuedAt, startedAt, completedAt or status in either direction (missing times last)', async () => {
      expect((await list('&sortDescending=false')).items.map((e: { id: string }) => e.id)).toEqual(ids);
      expect((await list('&sortBy=startedAt')).items.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[0], ids[2]]);
      expect((await list('&sortBy=completedAt&sortDescending=false')).items.map((e: { id: string }) => e.id)).toEqual([
        ids[0],
        ids[1],
        ids[2],
      ]);
      expect((await list('&sortBy=completedAt')).items.map((e: { id: string }) => e.id)).toEqual([ids[0], ids[2], ids[1]]);
      expect((await list('&sortBy=status&sortDescending=false')).items.map((e: { status: string }) => e.status)).toEqual([
        'Completed',
        'InProgress',
        'Queued',
      ]);
      const second = await list('&pageSize=2&page=2');
      expect(second).toMatchObject({ totalCount: 3, page: 2, pageSize: 2, totalPages: 2, hasPreviousPage: true, hasNextPage: false });
      expect(second.items.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    });

    it('filters by schedule (an unknown schedule gives an empty page)', async () => {
      const page = (await h.http.get(`/api/v1/schedule-executions?scheduleId=${MISSING}`).set(admin()).expect(200)).body;
      expect(page).toMatchObject({ items: [], totalCount: 0 });
      const all = (await h.http.get('/api/v1/schedule-executions?pageSize=100').set(admin()).expect(200)).body;
      expect(all.totalCount).toBeGreaterThan(3);
    });

    it.each([
      ['sortBy=name', 'sortBy'],
      ['sortDescending=maybe', 'sortDescending'],
      ['scheduleId=nope', 'scheduleId'],
      ['pageSize=101', 'pageSize'],
      ['pageSize=0', 'pageSize'],
      ['page=0', 'page'],
    ])('refuses %s with 400 naming %s', async (query, field) => {
      const res = await h.http.get(`/api/v1/schedule-executions?${query}`).set(admin()).expect(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.validationErrors)).toEqual([field]);
    });

    it('gets one execution with steps, and 404/400 for unknown/malformed ids', async () => {
      const detail = (await h.http.get(`/api/v1/schedule-executions/${ids[0]}`).set(admin()).expect(200)).body;
      expect(detail).toMatchObject({
        id: ids[0],
        status: 'Completed',
        queuedAt: '2030-01-01T10:00:00.000Z',
        completedAt: '2030-01-01T10:00:09.000Z',
        steps: [],
      });
      expect((await h.http.get(`/api/v1/schedule-executions/${MISSING}`).set(admin()).expect(404)).body.code).toBe('NOT_FOUND');
      expect((await h.http.get('/api/v1/schedule-executions/123').set(admin()).expect(400)).body.code).toBe('VALIDATION_ERROR');
    });

    it('lists active executions (Queued, InProgress, Paused) as an array, oldest first', async () => {
      await sql.query(`UPDATE schedule_execution SET status = 'Paused' WHERE id = $1`, [ids[2]]);
      const active = (await h.http.get('/api/v1/schedule-executions/active').set(admin()).expect(200)).body as Array<{
        id: string;
        status: string;
      }>;
      expect(Array.isArray(active)).toBe(true);
      const mine = active.filter((e) => ids.includes(e.id));
      expect(mine.map((e) => [e.id, e.status])).toEqual([
        [ids[1], 'InProgress'],
        [ids[2], 'Paused'],
      ]);
      expect(active.every((e) => ['Queued', 'InProgress', 'Paused'].includes(e.status))).toBe(true);
    });
  });

  describe('cancel', () => {
    it('cancels a queued execution at once, steps included, and refuses to cancel it again (400)', async () => {
      const schedule = await createSchedule({
        name: 'Cancel queued',
        triggerType: 'Manual',
        steps: [{ stepIndex: 0, stepType: 'Executable', executablePath: 'ok.sh' }],
      });
      const execution = await run(schedule.id);
      const res = await h.http.post(`/api/v1/schedule-executions/${execution.id}/cancel`).set(admin()).expect(200);
      expect(res.body).toMatchObject({ id: execution.id, status: 'Cancelled', steps: [expect.objectContaining({ status: 'Cancelled' })] });
      expect(res.body.completedAt).not.toBeNull();
      const again = await h.http.post(`/api/v1/schedule-executions/${execution.id}/cancel`).set(admin()).expect(400);
      expect(again.body).toMatchObject({
        code: 'BAD_REQUEST',
        message: `Execution ${execution.id} is already Cancelled; only Queued, InProgress or Paused executions can be cancelled.`,
      });
      expect((await h.http.post(`/api/v1/schedule-executions/${MISSING}/cancel`).set(admin()).expect(404)).body.code).toBe('NOT_FOUND');
      const activity = (await h.http.get(`/api/v1/activities/${execution.id}`).set(admin()).expect(200)).body;
      expect(activity.status).toBe('Cancelled');
    });

    it('cancelling a running execution through the API kills its process group; Cancelled is never overwritten', async () => {
      const host = await startScheduleRunner(h);
      const { runner } = host;
      let stop = false;
      const loop = (async () => {
        while (!stop) {
          await runner.pass({ leader: true, maintenance: false });
          await new Promise((r) => setTimeout(r, 30));
        }
      })();
      try {
        const schedule = await createSchedule({
          name: 'Cancel running',
          triggerType: 'Manual',
          steps: [{ stepIndex: 0, stepType: 'Executable', name: 'sleeper', executablePath: 'sleeper.sh' }],
        });
        const execution = await run(schedule.id);
        const childFile = join(scripts, `child-${execution.id}.pid`);
        await waitFor(async () => existsSync(childFile) && readFileSync(childFile, 'utf8').trim() !== '');
        const running = (await h.http.get(`/api/v1/schedule-executions/${execution.id}`).set(admin()).expect(200)).body;
        expect(running).toMatchObject({
          status: 'InProgress',
          steps: [expect.objectContaining({ name: 'sleeper', status: 'Processing' })],
        });
        const {
          rows: [step],
        } = await sql.query(`SELECT process_id FROM schedule_execution_step WHERE execution_id = $1`, [execution.id]);
        const pids = [step.process_id as number, Number(readFileSync(childFile, 'utf8'))];
        expect(pids.every(processAlive)).toBe(true);

        const res = await h.http.post(`/api/v1/schedule-executions/${execution.id}/cancel`).set(admin()).expect(200);
        expect(res.body.status).toBe('Cancelled');
        await waitFor(async () => pids.every((p) => !processAlive(p)));
        const done = await waitFor(async () => {
          const body = (await h.http.get(`/api/v1/schedule-executions/${execution.id}`).set(admin()).expect(200)).body;
          return body.steps[0].status === 'Cancelled' ? body : null;
        });
        await new Promise((r) => setTimeout(r, 300));
        const later = (await h.http.get(`/api/v1/schedule-executions/${execution.id}`).set(admin()).expect(200)).body;
        expect(later).toEqual(done);
        expect(later).toMatchObject({ status: 'Cancelled', completedAt: res.body.completedAt });
      } finally {
        stop = true;
        await loop;
        await host.close();
      }
    });
  });
});
