import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStepConnectionString, ScheduleClock } from '@meridian/application';
import { nextRunTime, SchedulePattern } from '@meridian/domain';
import { loadConfig, SecretBox } from '@meridian/platform';
import { authorisedRequest, HttpMethod } from '@meridian/testing';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/schedules';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'S3cret-Sched-Passw0rd';
const CONNECTION = `postgres://meridian:${PASSWORD}@db.example.com:5432/hr?sslmode=require`;
const MASKED = 'postgres://meridian:*****@db.example.com:5432/hr?sslmode=require';

interface Res {
  status: number;
  body: any;
  text: string;
}

const PATTERN_NONE: SchedulePattern = {
  triggerType: 'Cron',
  patternType: 'SpecificTimes',
  daysOfWeek: null,
  runTimes: null,
  intervalValue: null,
  intervalUnit: null,
  intervalWindowStart: null,
  intervalWindowEnd: null,
  cronExpression: null,
  timeZone: 'UTC',
};

/** The pattern fields of a schedule response, for the domain function. */
const patternOf = (s: any): SchedulePattern =>
  Object.fromEntries(Object.keys(PATTERN_NONE).map((k) => [k, s[k]])) as unknown as SchedulePattern;

describe('Schedules (/api/v1/schedules)', () => {
  let h: WebHarness;
  let db: Client;
  let box: SecretBox;
  let hr: { systemId: number; importId: number; syncId: number };
  let directory: { systemId: number; exportId: number };
  let seq = 0;
  const texts: string[] = [];

  const api = async (method: HttpMethod, path: string, body?: unknown): Promise<Res> => {
    const r = await authorisedRequest(h.http, h.adminKey, method, path, body);
    texts.push(r.text);
    return { status: r.status, body: r.body, text: r.text };
  };
  const activities = async (id: string) =>
    (await db.query(`SELECT * FROM activity WHERE target_type = 'Schedule' AND target_id = $1 ORDER BY created, id`, [id])).rows;
  /** nextRunTime must be the domain's answer for a moment between `before` and `after` (the request's own clock). */
  const expectNextRun = (schedule: any, before: Date, after: Date) => {
    const candidates = [nextRunTime(patternOf(schedule), before), nextRunTime(patternOf(schedule), after)].map(
      (d) => d?.toISOString() ?? null,
    );
    expect(candidates).toContain(schedule.nextRunTime);
  };
  const system = async (name: string, profiles: string[]): Promise<number[]> => {
    const {
      rows: [s],
    } = await db.query(`INSERT INTO connected_system (name, connector_type, settings) VALUES ($1, 'File', '{}') RETURNING id`, [name]);
    const ids = [s.id];
    for (const p of profiles) {
      ids.push(
        (
          await db.query(
            `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, $2, 'FullImport') RETURNING id`,
            [s.id, p],
          )
        ).rows[0].id,
      );
    }
    return ids;
  };
  const create = async (body: Record<string, unknown>) => {
    seq += 1;
    const res = await api('post', BASE, { name: `Schedule ${seq}`, triggerType: 'Manual', ...body });
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    box = new SecretBox(loadConfig('web', h.env.env));
    const [hrId, importId, syncId] = await system('HR', ['Full import', 'Full sync']);
    hr = { systemId: hrId, importId, syncId };
    const [dirId, exportId] = await system('Directory', ['Export']);
    directory = { systemId: dirId, exportId };
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  it('creates, lists, reads, updates and deletes a schedule, each change an activity', async () => {
    const before = new Date();
    const created = await api('post', BASE, {
      name: 'HR weekday sync',
      description: 'Imports HR, syncs, exports.',
      triggerType: 'Cron',
      patternType: 'SpecificTimes',
      daysOfWeek: '5,1,2,3,4',
      runTimes: '17:30,09:00',
      timeZone: 'europe/london',
      isEnabled: true,
      steps: [
        { stepIndex: 0, stepType: 'RunProfile', connectedSystemId: hr.systemId, runProfileId: hr.importId, timeoutSeconds: 3600 },
        { stepIndex: 1, stepType: 'RunProfile', connectedSystemId: hr.systemId, runProfileId: hr.syncId, name: 'Sync HR' },
        {
          stepIndex: 2,
          stepType: 'RunProfile',
          connectedSystemId: directory.systemId,
          runProfileId: directory.exportId,
          continueOnFailure: true,
        },
        {
          stepIndex: 2,
          stepType: 'Executable',
          executablePath: 'bin/notify.sh',
          arguments: '--channel "ops team"',
          workingDirectory: 'bin',
          executionMode: 'Sequential',
        },
      ],
    });
    const after = new Date();
    expect(created.status).toBe(201);
    const s = created.body;
    expect(s).toEqual({
      id: expect.stringMatching(UUID),
      name: 'HR weekday sync',
      description: 'Imports HR, syncs, exports.',
      triggerType: 'Cron',
      cronExpression: '0 9 * * 1-5; 30 17 * * 1-5',
      patternType: 'SpecificTimes',
      daysOfWeek: '1,2,3,4,5',
      runTimes: '09:00,17:30',
      intervalValue: null,
      intervalUnit: null,
      intervalWindowStart: null,
      intervalWindowEnd: null,
      timeZone: 'Europe/London',
      isEnabled: true,
      lastRunTime: null,
      nextRunTime: expect.stringMatching(ISO),
      stepCount: 4,
      created: expect.stringMatching(ISO),
      lastUpdated: null,
      lastExecutionId: null,
      lastExecutionStatus: null,
      lastExecutionCompletedAt: null,
      steps: [
        {
          id: expect.stringMatching(UUID),
          stepIndex: 0,
          name: 'HR — Full import',
          executionMode: 'Sequential',
          stepType: 'RunProfile',
          continueOnFailure: false,
          timeoutSeconds: 3600,
          connectedSystemId: hr.systemId,
          runProfileId: hr.importId,
          scriptPath: null,
          arguments: null,
          executablePath: null,
          workingDirectory: null,
          sqlConnectionString: null,
          sqlScriptPath: null,
        },
        expect.objectContaining({ stepIndex: 1, name: 'Sync HR', executionMode: 'Sequential', runProfileId: hr.syncId }),
        expect.objectContaining({ stepIndex: 2, name: 'Directory — Export', executionMode: 'Sequential', continueOnFailure: true }),
        expect.objectContaining({
          stepIndex: 2,
          name: null,
          executionMode: 'ParallelWithPrevious',
          stepType: 'Executable',
          executablePath: 'bin/notify.sh',
          arguments: '--channel "ops team"',
          workingDirectory: 'bin',
          connectedSystemId: null,
        }),
      ],
    });
    expectNextRun(s, before, after);
    const [createdActivity] = await activities(s.id);
    expect(createdActivity).toMatchObject({
      target_operation_type: 'Create',
      target_name: 'HR weekday sync',
      status: 'Complete',
      initiated_by_type: 'ApiKey',
      details: {
        triggerType: 'Cron',
        patternType: 'SpecificTimes',
        cronExpression: '0 9 * * 1-5; 30 17 * * 1-5',
        timeZone: 'Europe/London',
        isEnabled: true,
        nextRunTime: s.nextRunTime,
        stepCount: 4,
      },
    });

    const { steps, ...summary } = s;
    expect(steps).toHaveLength(4);
    expect(await api('get', `${BASE}/${s.id}`)).toMatchObject({ status: 200, body: s });
    const list = await api('get', `${BASE}?pageSize=100`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 100, hasPreviousPage: false });
    expect(list.body.items.find((i: any) => i.id === s.id)).toEqual(summary);

    const renamed = await api('put', `${BASE}/${s.id}`, { name: 'HR weekday sync (renamed)' });
    expect(renamed).toMatchObject({
      status: 200,
      body: { ...summary, name: 'HR weekday sync (renamed)', lastUpdated: expect.stringMatching(ISO), steps: s.steps },
    });
    expect((await activities(s.id)).at(-1)).toMatchObject({
      target_operation_type: 'Update',
      target_name: 'HR weekday sync (renamed)',
      details: { changes: { name: { from: 'HR weekday sync', to: 'HR weekday sync (renamed)' } } },
    });

    expect((await api('delete', `${BASE}/${s.id}`)).status).toBe(204);
    expect((await activities(s.id)).at(-1)).toMatchObject({
      target_operation_type: 'Delete',
      target_name: 'HR weekday sync (renamed)',
      details: { triggerType: 'Cron', stepCount: 4, executionsDeleted: 0 },
    });
    expect((await db.query(`SELECT count(*)::int AS n FROM schedule_step WHERE schedule_id = $1`, [s.id])).rows[0].n).toBe(0);
    expect((await api('get', `${BASE}/${s.id}`)).status).toBe(404);
    expect((await api('delete', `${BASE}/${s.id}`)).status).toBe(404);
  });

  it('creates with only name and triggerType for a Manual schedule: disabled, no pattern, no next run', async () => {
    const res = await api('post', BASE, { name: 'On demand', triggerType: 'Manual' });
    expect(res).toMatchObject({
      status: 201,
      body: {
        triggerType: 'Manual',
        patternType: 'SpecificTimes',
        cronExpression: null,
        timeZone: 'UTC',
        isEnabled: false,
        nextRunTime: null,
        stepCount: 0,
        steps: [],
      },
    });
    const enabled = await api('post', `${BASE}/${res.body.id}/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { isEnabled: true, nextRunTime: null } });
  });

  it('refuses a second schedule with the same name, ignoring case (409)', async () => {
    await create({ name: 'Nightly' });
    const dup = await api('post', BASE, { name: 'NIGHTLY', triggerType: 'Manual' });
    expect(dup).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    const other = await create({ name: 'Nightly 2' });
    expect((await api('put', `${BASE}/${other.id}`, { name: 'nightly' })).status).toBe(409);
    expect((await api('put', `${BASE}/${other.id}`, { name: 'NIGHTLY 2' })).status).toBe(200);
  });

  it('PUT is partial: only the fields sent change, steps and lastRunTime stay', async () => {
    const s = await create({
      triggerType: 'Cron',
      patternType: 'Interval',
      daysOfWeek: '1,2,3,4,5',
      intervalValue: 30,
      intervalUnit: 'Minutes',
      intervalWindowStart: '08:15',
      intervalWindowEnd: '10:00',
      isEnabled: true,
      steps: [{ stepIndex: 0, stepType: 'PowerShell', scriptPath: 'a.ps1' }],
    });
    expect(s.cronExpression).toBe('15,45 8,9 * * 1-5');
    await db.query(`UPDATE schedule SET last_run_time = '2025-01-06T08:15:00Z' WHERE id = $1`, [s.id]);
    const activityCount = (await activities(s.id)).length;

    const res = await api('put', `${BASE}/${s.id}`, { description: 'Every half hour in the morning.' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...s,
      description: 'Every half hour in the morning.',
      lastRunTime: '2025-01-06T08:15:00.000Z',
      lastUpdated: expect.stringMatching(ISO),
    });

    // Nothing sent that differs: no change, no activity.
    expect(
      (
        await api('put', `${BASE}/${s.id}`, {
          description: 'Every half hour in the morning.',
          intervalValue: 30,
          cronExpression: 'ignored for Interval',
        })
      ).status,
    ).toBe(200);
    expect(await activities(s.id)).toHaveLength(activityCount + 1);

    // A pattern change recomputes the cron and the next run.
    const before = new Date();
    const hourly = await api('put', `${BASE}/${s.id}`, { intervalUnit: 'Hours', intervalValue: 1 });
    const after = new Date();
    expect(hourly.body).toMatchObject({
      cronExpression: '15 8,9 * * 1-5',
      intervalValue: 1,
      intervalUnit: 'Hours',
      lastRunTime: '2025-01-06T08:15:00.000Z',
    });
    expectNextRun(hourly.body, before, after);
    expect((await activities(s.id)).at(-1).details.changes).toEqual({
      intervalUnit: { from: 'Minutes', to: 'Hours' },
      intervalValue: { from: 30, to: 1 },
      cronExpression: { from: '15,45 8,9 * * 1-5', to: '15 8,9 * * 1-5' },
      ...(hourly.body.nextRunTime !== s.nextRunTime ? { nextRunTime: { from: s.nextRunTime, to: hourly.body.nextRunTime } } : {}),
    });

    // Switching to Custom without an expression keeps the generated one as the custom expression.
    const custom = await api('put', `${BASE}/${s.id}`, { patternType: 'Custom' });
    expect(custom.body).toMatchObject({ patternType: 'Custom', cronExpression: '15 8,9 * * 1-5', nextRunTime: hourly.body.nextRunTime });
    const replaced = await api('put', `${BASE}/${s.id}`, { cronExpression: ' 0  12 * * 1 ; 30 18 * * 5 ' });
    expect(replaced.body.cronExpression).toBe('0 12 * * 1; 30 18 * * 5');
  });

  it('steps replace all steps: ids sent back are kept and updated in place, others added, missing ones deleted', async () => {
    const s = await create({
      steps: [
        { stepIndex: 0, stepType: 'RunProfile', connectedSystemId: hr.systemId, runProfileId: hr.importId },
        { stepIndex: 1, stepType: 'Executable', executablePath: 'one.sh' },
        { stepIndex: 1, stepType: 'Executable', executablePath: 'two.sh' },
      ],
    });
    const [first, one, two] = s.steps;
    expect([first.executionMode, one.executionMode, two.executionMode]).toEqual(['Sequential', 'Sequential', 'ParallelWithPrevious']);
    expect([one.executablePath, two.executablePath]).toEqual(['one.sh', 'two.sh']);

    const res = await api('put', `${BASE}/${s.id}`, {
      steps: [
        { ...two, stepIndex: 0, timeoutSeconds: 60 },
        { ...first, stepIndex: 1 },
        { stepIndex: 1, stepType: 'SqlScript', sqlConnectionString: CONNECTION, sqlScriptPath: 'sql/after.sql' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.stepCount).toBe(3);
    expect(res.body.steps).toEqual([
      { ...two, stepIndex: 0, timeoutSeconds: 60, executionMode: 'Sequential' },
      { ...first, stepIndex: 1 },
      expect.objectContaining({
        id: expect.stringMatching(UUID),
        stepIndex: 1,
        executionMode: 'ParallelWithPrevious',
        stepType: 'SqlScript',
        sqlConnectionString: MASKED,
      }),
    ]);
    expect([first.id, two.id]).not.toContain(res.body.steps[2].id);
    const { rows } = await db.query(`SELECT id FROM schedule_step WHERE schedule_id = $1 ORDER BY id`, [s.id]);
    expect(rows.map((r) => r.id).sort()).toEqual([first.id, two.id, res.body.steps[2].id].sort());
    expect((await activities(s.id)).at(-1)).toMatchObject({
      target_operation_type: 'Update',
      details: { changes: {}, steps: { added: 1, changed: 2, removed: 1, unchanged: 0 } },
    });

    // Sending the steps back as they are changes nothing.
    const count = (await activities(s.id)).length;
    expect((await api('put', `${BASE}/${s.id}`, { steps: res.body.steps })).body.steps).toEqual(res.body.steps);
    expect(await activities(s.id)).toHaveLength(count);

    // An empty list removes every step.
    expect((await api('put', `${BASE}/${s.id}`, { steps: [] })).body).toMatchObject({ stepCount: 0, steps: [] });
  });

  it('nextRunTime: enabled Cron schedules only, recomputed on enable, null when disabled; enable/disable are Update activities', async () => {
    const s = await create({ triggerType: 'Cron', patternType: 'Custom', cronExpression: '*/5 * * * *', timeZone: 'America/New_York' });
    expect(s).toMatchObject({ isEnabled: false, nextRunTime: null, cronExpression: '*/5 * * * *' });

    let before = new Date();
    const enabled = await api('post', `${BASE}/${s.id}/enable`);
    let after = new Date();
    expect(enabled).toMatchObject({
      status: 200,
      body: { isEnabled: true, nextRunTime: expect.stringMatching(ISO), lastUpdated: expect.stringMatching(ISO), steps: [] },
    });
    expectNextRun(enabled.body, before, after);
    expect((await activities(s.id)).at(-1)).toMatchObject({
      target_operation_type: 'Update',
      message: `Schedule "${s.name}" enabled.`,
      details: { changes: { isEnabled: { from: false, to: true }, nextRunTime: { from: null, to: enabled.body.nextRunTime } } },
    });

    const count = (await activities(s.id)).length;
    expect((await api('post', `${BASE}/${s.id}/enable`)).body.nextRunTime).toBe(enabled.body.nextRunTime);
    expect(await activities(s.id)).toHaveLength(count);

    const disabled = await api('post', `${BASE}/${s.id}/disable`);
    expect(disabled).toMatchObject({ status: 200, body: { isEnabled: false, nextRunTime: null } });
    expect((await activities(s.id)).at(-1)).toMatchObject({
      message: `Schedule "${s.name}" disabled.`,
      details: { changes: { isEnabled: { from: true, to: false }, nextRunTime: { from: enabled.body.nextRunTime, to: null } } },
    });

    // Enabling through PUT, and switching an enabled schedule to Manual.
    before = new Date();
    const viaPut = await api('put', `${BASE}/${s.id}`, {
      isEnabled: true,
      patternType: 'SpecificTimes',
      daysOfWeek: '0,6',
      runTimes: '07:45',
    });
    after = new Date();
    expect(viaPut.body).toMatchObject({ isEnabled: true, cronExpression: '45 7 * * 0,6' });
    expectNextRun(viaPut.body, before, after);
    expect(new Date(viaPut.body.nextRunTime).getUTCMinutes()).toBe(45);
    // An enabled Cron schedule whose next run the scheduler cleared gets one back when saved.
    await db.query(`UPDATE schedule SET next_run_time = NULL WHERE id = $1`, [s.id]);
    const resaved = await api('put', `${BASE}/${s.id}`, {});
    expect(resaved.body.nextRunTime).toBe(viaPut.body.nextRunTime);
    expect((await activities(s.id)).at(-1).details.changes).toEqual({ nextRunTime: { from: null, to: viaPut.body.nextRunTime } });
    expect((await api('put', `${BASE}/${s.id}`, { triggerType: 'Manual' })).body).toMatchObject({
      triggerType: 'Manual',
      isEnabled: true,
      nextRunTime: null,
    });
  });

  it("computes nextRunTime on the scheduler clock, in the schedule's time zone, across daylight saving", async () => {
    const clock = h.app.get(ScheduleClock);
    try {
      clock.useSource(() => new Date('2025-03-29T12:00:00Z')); // the day before Europe/London springs forward
      const gap = await create({
        triggerType: 'Cron',
        patternType: 'SpecificTimes',
        daysOfWeek: '0,1,2,3,4,5,6',
        runTimes: '01:30,09:00',
        timeZone: 'Europe/London',
        isEnabled: true,
      });
      // 01:30 does not exist on 30 March: it runs at the first instant after the gap, 02:00 BST.
      expect(gap).toMatchObject({ cronExpression: '30 1 * * *; 0 9 * * *', nextRunTime: '2025-03-30T01:00:00.000Z' });
      clock.useSource(() => new Date('2025-03-30T01:00:00Z'));
      expect((await api('put', `${BASE}/${gap.id}`, { runTimes: '09:00,17:30' })).body.nextRunTime).toBe('2025-03-30T08:00:00.000Z');

      clock.useSource(() => new Date('2025-10-25T23:59:00Z')); // just before Europe/London falls back
      const repeated = await create({
        triggerType: 'Cron',
        patternType: 'Interval',
        daysOfWeek: '0',
        intervalValue: 1,
        intervalUnit: 'Hours',
        intervalWindowStart: '01:30',
        intervalWindowEnd: '03:00',
        timeZone: 'Europe/London',
      });
      expect((await api('post', `${BASE}/${repeated.id}/enable`)).body.nextRunTime).toBe('2025-10-26T00:30:00.000Z'); // 01:30 BST, its first occurrence
      expect(nextRunTime(patternOf(repeated), new Date('2025-10-26T00:30:00Z'))?.toISOString()).toBe('2025-10-26T02:30:00.000Z'); // not 01:30 GMT again
    } finally {
      clock.useSource(() => new Date());
    }
  });

  it('lists schedules by name, paginated, each with its latest execution outcome', async () => {
    const a = await create({ name: 'aaa first', steps: [{ stepIndex: 0, stepType: 'Executable', executablePath: 'x.sh' }] });
    await db.query(
      `INSERT INTO schedule_execution (schedule_id, schedule_name, status, queued_at, completed_at, initiated_by_type)
      VALUES ($1, $2, 'Completed', '2025-01-01T00:00:00Z', '2025-01-01T00:05:00Z', 'NotSet')`,
      [a.id, a.name],
    );
    const {
      rows: [latest],
    } = await db.query(
      `INSERT INTO schedule_execution (schedule_id, schedule_name, status, queued_at, completed_at, initiated_by_type, error_message)
      VALUES ($1, $2, 'Failed', '2025-01-02T00:00:00Z', '2025-01-02T00:01:00Z', 'ApiKey', 'Step "x.sh" failed') RETURNING id`,
      [a.id, a.name],
    );

    const page = await api('get', `${BASE}?page=1&pageSize=1`);
    expect(page).toMatchObject({
      status: 200,
      body: { page: 1, pageSize: 1, hasNextPage: true, hasPreviousPage: false, items: [{ id: a.id, stepCount: 1 }] },
    });
    expect(page.body.items[0]).toMatchObject({
      lastExecutionId: latest.id,
      lastExecutionStatus: 'Failed',
      lastExecutionCompletedAt: '2025-01-02T00:01:00.000Z',
    });
    expect(page.body.totalPages).toBe(page.body.totalCount);
    expect((await api('get', `${BASE}/${a.id}`)).body).toMatchObject({ lastExecutionId: latest.id, lastExecutionStatus: 'Failed' });

    // A queued run is the latest: it shows with no completion time.
    const {
      rows: [queued],
    } = await db.query(
      `INSERT INTO schedule_execution (schedule_id, schedule_name, status, queued_at, initiated_by_type)
      VALUES ($1, $2, 'Queued', now(), 'User') RETURNING id`,
      [a.id, a.name],
    );
    expect((await api('get', `${BASE}?pageSize=1`)).body.items[0]).toMatchObject({
      lastExecutionId: queued.id,
      lastExecutionStatus: 'Queued',
      lastExecutionCompletedAt: null,
    });

    // Deleting it is refused while that execution is active; finished executions go with the schedule.
    const refused = await api('delete', `${BASE}/${a.id}`);
    expect(refused).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: { executionIds: [queued.id] } } });
    expect(refused.body.message).toMatch(/Queued.*cancel it/);
    await db.query(`UPDATE schedule_execution SET status = 'Cancelled', completed_at = now() WHERE id = $1`, [queued.id]);
    expect((await api('delete', `${BASE}/${a.id}`)).status).toBe(204);
    expect((await db.query(`SELECT count(*)::int AS n FROM schedule_execution WHERE schedule_id = $1`, [a.id])).rows[0].n).toBe(0);
    expect((await activities(a.id)).at(-1).details).toMatchObject({ executionsDeleted: 3, stepCount: 1 });

    expect((await api('get', `${BASE}?page=1000`)).body).toMatchObject({
      items: [],
      page: 1000,
      hasNextPage: false,
      hasPreviousPage: true,
    });
    expect(await api('get', `${BASE}?pageSize=101`)).toMatchObject({
      status: 400,
      body: { validationErrors: { pageSize: expect.any(Array) } },
    });
    expect(await api('get', `${BASE}?page=0`)).toMatchObject({ status: 400, body: { validationErrors: { page: expect.any(Array) } } });
  });

  it('answers 404 for a schedule that does not exist and 400 for an id that is not a UUID', async () => {
    const missing = '6f1d7c1e-8d0a-4b59-9a43-2f1d5c0b9e77';
    for (const [method, path] of [
      ['get', ''],
      ['put', ''],
      ['delete', ''],
      ['post', '/enable'],
      ['post', '/disable'],
    ] as const) {
      const res = await api(method, `${BASE}/${missing}${path}`, method === 'put' ? { description: 'x' } : undefined);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
      const bad = await api(method, `${BASE}/not-a-uuid${path}`, method === 'put' ? { description: 'x' } : undefined);
      expect({ path, status: bad.status, fields: Object.keys(bad.body.validationErrors ?? {}) }).toEqual({
        path,
        status: 400,
        fields: ['id'],
      });
    }
  });

  it('seals SQL connection strings at rest and never returns, records or logs the password', async () => {
    const s = await create({
      steps: [{ stepIndex: 0, stepType: 'SqlScript', sqlConnectionString: CONNECTION, sqlScriptPath: 'sql/cleanup.sql' }],
    });
    const [step] = s.steps;
    expect(step.sqlConnectionString).toBe(MASKED);
    const stored = async () =>
      (await db.query(`SELECT sql_connection_string AS v FROM schedule_step WHERE id = $1`, [step.id])).rows[0].v as string;
    const sealed = await stored();
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(PASSWORD);
    expect(openStepConnectionString(box, step.id, sealed)).toBe(CONNECTION);
    // Bound to its step: the same sealed value does not open for another step.
    expect(() => openStepConnectionString(box, s.id, sealed)).toThrow();

    // Sent back masked and unchanged: the stored password stays (and nothing changed).
    const same = await api('put', `${BASE}/${s.id}`, { steps: [step] });
    expect(same.body.steps[0]).toEqual(step);
    expect(openStepConnectionString(box, step.id, await stored())).toBe(CONNECTION);

    // Masked password with another host: the stored password moves to the new URL.
    const moved = await api('put', `${BASE}/${s.id}`, {
      steps: [{ ...step, sqlConnectionString: 'mysql://meridian:*****@db2.example.com:3306/hr' }],
    });
    expect(moved.body.steps[0].sqlConnectionString).toBe('mysql://meridian:*****@db2.example.com:3306/hr');
    expect(openStepConnectionString(box, step.id, await stored())).toBe(`mysql://meridian:${PASSWORD}@db2.example.com:3306/hr`);

    // A mask with no stored password behind it (a new step) is refused.
    const orphan = await api('put', `${BASE}/${s.id}`, {
      steps: [{ stepIndex: 0, stepType: 'SqlScript', sqlConnectionString: MASKED, sqlScriptPath: 'x.sql' }],
    });
    expect(orphan).toMatchObject({
      status: 400,
      body: { validationErrors: { 'steps[0].sqlConnectionString': [expect.stringMatching(/\*{5} where no password is stored/)] } },
    });

    // A new password replaces the old one.
    await api('put', `${BASE}/${s.id}`, {
      steps: [{ ...step, sqlConnectionString: 'postgres://meridian:N3w-Secret-Value@db.example.com/hr' }],
    });
    expect(openStepConnectionString(box, step.id, await stored())).toBe('postgres://meridian:N3w-Secret-Value@db.example.com/hr');

    await api('get', `${BASE}/${s.id}`);
    await api('get', `${BASE}?pageSize=100`);
    const leaks = (text: string) => text.includes(PASSWORD) || text.includes('N3w-Secret-Value');
    expect(texts.filter(leaks)).toEqual([]);
    const { rows } = await db.query(`SELECT message, details::text AS details FROM activity WHERE target_id = $1`, [s.id]);
    expect(rows.filter((r) => leaks(`${r.message} ${r.details}`))).toEqual([]);
    const logs = readdirSync(h.env.logDir)
      .map((f) => readFileSync(join(h.env.logDir, f), 'utf8'))
      .join('\n');
    expect(leaks(logs)).toBe(false);
  });
});
