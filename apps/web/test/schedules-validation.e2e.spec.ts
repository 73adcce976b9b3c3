import { authorisedRequest, statusAndBody } from '@meridian/testing';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const BASE = '/api/v1/schedules';

/** Every validation rule of spec 2.6, 2.7 and 4.4: a 400 VALIDATION_ERROR that names the field. */
describe('Schedules: validation (400 VALIDATION_ERROR with field names)', () => {
  let h: WebHarness;
  let db: Client;
  let systemId: number;
  let profileId: number;
  let otherSystemId: number;
  let otherProfileId: number;
  let existing: any;

  const api = (method: 'post' | 'put', path: string, body: object) =>
    authorisedRequest(h.http, h.adminKey, method, path, body).then(statusAndBody);

  beforeAll(async () => {
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    const sys = async (name: string) => {
      const {
        rows: [s],
      } = await db.query(`INSERT INTO connected_system (name, connector_type) VALUES ($1, 'File') RETURNING id`, [name]);
      const {
        rows: [p],
      } = await db.query(
        `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Full import', 'FullImport') RETURNING id`,
        [s.id],
      );
      return [s.id, p.id];
    };
    [systemId, profileId] = await sys('HR');
    [otherSystemId, otherProfileId] = await sys('Directory');
    const res = await api('post', BASE, {
      name: 'Existing',
      triggerType: 'Cron',
      patternType: 'SpecificTimes',
      daysOfWeek: '1',
      runTimes: '09:00',
      steps: [{ stepIndex: 0, stepType: 'Executable', executablePath: 'x.sh' }],
    });
    expect(res.status).toBe(201);
    existing = res.body;
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
  });

  const CRON = { name: 'Valid', triggerType: 'Cron', patternType: 'SpecificTimes', daysOfWeek: '1,2,3,4,5', runTimes: '09:00,17:30' };
  const INTERVAL = {
    ...CRON,
    patternType: 'Interval',
    runTimes: undefined,
    intervalValue: 30,
    intervalUnit: 'Minutes',
    intervalWindowStart: '08:00',
    intervalWindowEnd: '18:00',
  };
  const step = (s: Record<string, unknown>) => ({ ...CRON, steps: [s] });
  const RP = () => ({ stepIndex: 0, stepType: 'RunProfile', connectedSystemId: systemId, runProfileId: profileId });

  it.each<[string, () => Record<string, unknown>, string, RegExp | (() => RegExp)]>([
    ['no name', () => ({ ...CRON, name: undefined }), 'name', /name is required and must be 1-200 characters/],
    ['an empty name', () => ({ ...CRON, name: '   ' }), 'name', /1-200 characters/],
    ['a name of 201 characters', () => ({ ...CRON, name: 'x'.repeat(201) }), 'name', /1-200 characters/],
    ['a name that is not text', () => ({ ...CRON, name: 42 }), 'name', /name/],
    ['a description of 2001 characters', () => ({ ...CRON, description: 'x'.repeat(2001) }), 'description', /at most 2000/],
    ['no triggerType', () => ({ ...CRON, triggerType: undefined }), 'triggerType', /triggerType is required: Cron or Manual/],
    ['an unknown triggerType', () => ({ ...CRON, triggerType: 'Hourly' }), 'triggerType', /Cron or Manual/],
    [
      'a Cron schedule without patternType',
      () => ({ ...CRON, patternType: undefined }),
      'patternType',
      /patternType is required for Cron schedules/,
    ],
    ['an unknown patternType', () => ({ ...CRON, patternType: 'Weekly' }), 'patternType', /SpecificTimes, Interval or Custom/],
    ['SpecificTimes without daysOfWeek', () => ({ ...CRON, daysOfWeek: undefined }), 'daysOfWeek', /required for SpecificTimes/],
    ['SpecificTimes without runTimes', () => ({ ...CRON, runTimes: null }), 'runTimes', /required for SpecificTimes/],
    ['day 7', () => ({ ...CRON, daysOfWeek: '1,7' }), 'daysOfWeek', /0 \(Sunday\) to 6 \(Saturday\)/],
    ['a repeated day', () => ({ ...CRON, daysOfWeek: '1,1' }), 'daysOfWeek', /more than once/],
    ['daysOfWeek as a number', () => ({ ...CRON, daysOfWeek: 1 }), 'daysOfWeek', /text/],
    ['a run time 24:00', () => ({ ...CRON, runTimes: '09:00,24:00' }), 'runTimes', /HH:mm from 00:00 to 23:59/],
    ['a run time without a leading zero', () => ({ ...CRON, runTimes: '9:00' }), 'runTimes', /'9:00' is not one/],
    ['Interval without intervalValue', () => ({ ...INTERVAL, intervalValue: undefined }), 'intervalValue', /required for Interval/],
    ['Interval without intervalUnit', () => ({ ...INTERVAL, intervalUnit: undefined }), 'intervalUnit', /required for Interval/],
    [
      'Interval without a window start',
      () => ({ ...INTERVAL, intervalWindowStart: undefined }),
      'intervalWindowStart',
      /required for Interval/,
    ],
    ['Interval without a window end', () => ({ ...INTERVAL, intervalWindowEnd: undefined }), 'intervalWindowEnd', /required for Interval/],
    ['Interval without days', () => ({ ...INTERVAL, daysOfWeek: undefined }), 'daysOfWeek', /required for Interval/],
    ['intervalValue 0', () => ({ ...INTERVAL, intervalValue: 0 }), 'intervalValue', /from 1 to 59/],
    ['intervalValue 60', () => ({ ...INTERVAL, intervalValue: 60 }), 'intervalValue', /from 1 to 59/],
    ['intervalValue as text', () => ({ ...INTERVAL, intervalValue: '30' }), 'intervalValue', /from 1 to 59/],
    ['intervalUnit Days', () => ({ ...INTERVAL, intervalUnit: 'Days' }), 'intervalUnit', /Minutes or Hours/],
    ['a window start that is not HH:mm', () => ({ ...INTERVAL, intervalWindowStart: '8:00' }), 'intervalWindowStart', /HH:mm/],
    ['a window end that is not HH:mm', () => ({ ...INTERVAL, intervalWindowEnd: '18:00:00' }), 'intervalWindowEnd', /HH:mm/],
    [
      'a window end before its start',
      () => ({ ...INTERVAL, intervalWindowStart: '18:00', intervalWindowEnd: '08:00' }),
      'intervalWindowEnd',
      /later than intervalWindowStart/,
    ],
    ['Custom without cronExpression', () => ({ ...CRON, patternType: 'Custom' }), 'cronExpression', /required for Custom/],
    [
      'Custom with an hour out of range',
      () => ({ ...CRON, patternType: 'Custom', cronExpression: '0 25 * * *' }),
      'cronExpression',
      /the hour field '25' is out of range 0-23/,
    ],
    [
      'Custom with seconds (6 fields)',
      () => ({ ...CRON, patternType: 'Custom', cronExpression: '0 0 9 * * 1' }),
      'cronExpression',
      /has 6 fields.*exactly 5.*seconds/,
    ],
    ['Custom with 4 fields', () => ({ ...CRON, patternType: 'Custom', cronExpression: '0 9 * *' }), 'cronExpression', /has 4 fields/],
    [
      'Custom that never fires',
      () => ({ ...CRON, patternType: 'Custom', cronExpression: '0 0 30 2 *' }),
      'cronExpression',
      /never matches a date/,
    ],
    ['an unknown time zone', () => ({ ...CRON, timeZone: 'Europe/Atlantis' }), 'timeZone', /not an IANA time zone/],
    ['isEnabled as text', () => ({ ...CRON, isEnabled: 'yes' }), 'isEnabled', /true or false/],
    ['an unknown field', () => ({ ...CRON, color: 'red' }), 'color', /not a known field/],
    ['steps that are not an array', () => ({ ...CRON, steps: {} }), 'steps', /array/],
    ['a step without stepType', () => step({ stepIndex: 0 }), 'steps[0].stepType', /RunProfile, PowerShell, Executable, SqlScript/],
    [
      'a step without stepIndex',
      () => step({ stepType: 'Executable', executablePath: 'x.sh' }),
      'steps[0].stepIndex',
      /whole number from 0/,
    ],
    ['a gap in step indices', () => ({ ...CRON, steps: [RP(), { ...RP(), stepIndex: 2 }] }), 'steps[1].stepIndex', /leaves a gap/],
    ['an unknown step field', () => step({ ...RP(), shell: 'bash' }), 'steps[0].shell', /not a known field/],
    ['timeoutSeconds 0', () => step({ ...RP(), timeoutSeconds: 0 }), 'steps[0].timeoutSeconds', /from 1 to 86400/],
    ['timeoutSeconds 86401', () => step({ ...RP(), timeoutSeconds: 86_401 }), 'steps[0].timeoutSeconds', /from 1 to 86400/],
    [
      'a RunProfile step without connectedSystemId',
      () => step({ ...RP(), connectedSystemId: undefined }),
      'steps[0].connectedSystemId',
      /required for RunProfile/,
    ],
    [
      'a RunProfile step without runProfileId',
      () => step({ ...RP(), runProfileId: undefined }),
      'steps[0].runProfileId',
      /required for RunProfile/,
    ],
    [
      'a connected system that does not exist',
      () => step({ ...RP(), connectedSystemId: 999_999 }),
      'steps[0].connectedSystemId',
      /connected system 999999 does not exist/,
    ],
    [
      'a run profile that does not exist',
      () => step({ ...RP(), runProfileId: 999_999 }),
      'steps[0].runProfileId',
      /run profile 999999 does not exist/,
    ],
    [
      'a run profile of another system',
      () => step({ ...RP(), runProfileId: otherProfileId }),
      'steps[0].runProfileId',
      () => new RegExp(`run profile ${otherProfileId} belongs to connected system ${otherSystemId}, not ${systemId}`),
    ],
    [
      'an Executable step without executablePath',
      () => step({ stepIndex: 0, stepType: 'Executable' }),
      'steps[0].executablePath',
      /required for Executable/,
    ],
    [
      'an absolute executable',
      () => step({ stepIndex: 0, stepType: 'Executable', executablePath: '/bin/sh' }),
      'steps[0].executablePath',
      /not absolute/,
    ],
    [
      'an executable escaping the scripts root',
      () => step({ stepIndex: 0, stepType: 'Executable', executablePath: '../../bin/sh' }),
      'steps[0].executablePath',
      /"\.\." segments/,
    ],
    [
      'a working directory escaping the scripts root',
      () => step({ stepIndex: 0, stepType: 'Executable', executablePath: 'x', workingDirectory: 'a/../..' }),
      'steps[0].workingDirectory',
      /"\.\." segments/,
    ],
    [
      'a PowerShell step without scriptPath',
      () => step({ stepIndex: 0, stepType: 'PowerShell', arguments: '-x' }),
      'steps[0].scriptPath',
      /required for PowerShell/,
    ],
    [
      'a SqlScript step without a connection string',
      () => step({ stepIndex: 0, stepType: 'SqlScript', sqlScriptPath: 'a.sql' }),
      'steps[0].sqlConnectionString',
      /required for SqlScript/,
    ],
    [
      'a SqlScript step without a script',
      () => step({ stepIndex: 0, stepType: 'SqlScript', sqlConnectionString: 'postgres://db/hr' }),
      'steps[0].sqlScriptPath',
      /required for SqlScript/,
    ],
    [
      'an unsupported database',
      () => step({ stepIndex: 0, stepType: 'SqlScript', sqlConnectionString: 'sqlserver://sa:pw@db/hr', sqlScriptPath: 'a.sql' }),
      'steps[0].sqlConnectionString',
      /scheme 'sqlserver' is not supported/,
    ],
    ['a field another step type uses', () => step({ ...RP(), scriptPath: 'a.ps1' }), 'steps[0].scriptPath', /not used by RunProfile steps/],
    [
      'an unknown executionMode',
      () => step({ ...RP(), executionMode: 'Parallel' }),
      'steps[0].executionMode',
      /Sequential or ParallelWithPrevious/,
    ],
  ])('POST with %s → 400 naming the field', async (_, body, field, message) => {
    const res = await api('post', BASE, body());
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(Object.keys(res.body.validationErrors)).toContain(field);
    expect(res.body.validationErrors[field].join(' ')).toMatch(typeof message === 'function' ? message() : message);
  });

  it.each<[string, () => Record<string, unknown>, string, RegExp]>([
    ['a null name', () => ({ name: null }), 'name', /1-200 characters/],
    ['a null triggerType', () => ({ triggerType: null }), 'triggerType', /must not be null/],
    ['null steps (an empty array removes them)', () => ({ steps: null }), 'steps', /must be an array/],
    ['a null isEnabled', () => ({ isEnabled: null }), 'isEnabled', /true or false/],
    ['removing a required pattern field of a Cron schedule', () => ({ runTimes: null }), 'runTimes', /required for SpecificTimes/],
    ['switching to Interval without its fields', () => ({ patternType: 'Interval' }), 'intervalValue', /required for Interval/],
    [
      'a step id that is not one of this schedule',
      () => ({ steps: [{ id: '6f1d7c1e-8d0a-4b59-9a43-2f1d5c0b9e77', stepIndex: 0, stepType: 'Executable', executablePath: 'x' }] }),
      'steps[0].id',
      /not a step of this schedule/,
    ],
    [
      'the same step twice',
      () => ({ steps: [existing.steps[0], { ...existing.steps[0], stepIndex: 1 }] }),
      'steps[1].id',
      /repeats the id of steps\[0\]/,
    ],
  ])('PUT with %s → 400 naming the field', async (_, body, field, message) => {
    const res = await api('put', `${BASE}/${existing.id}`, body());
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(Object.keys(res.body.validationErrors)).toContain(field);
    expect(res.body.validationErrors[field].join(' ')).toMatch(message);
  });

  it('reports each malformed field once, with its own message', async () => {
    const created = await api('post', BASE, {
      ...INTERVAL,
      triggerType: null,
      intervalValue: '30',
      intervalUnit: 'Days',
      isEnabled: 'yes',
    });
    expect(created.status).toBe(400);
    expect(created.body.validationErrors).toEqual({
      triggerType: ['triggerType must not be null.'],
      intervalValue: ['intervalValue must be a whole number from 1 to 59.'],
      intervalUnit: ['intervalUnit must be Minutes or Hours.'],
      isEnabled: ['isEnabled must be true or false.'],
    });
    const updated = await api('put', `${BASE}/${existing.id}`, { patternType: null, name: 7, steps: null });
    expect(updated.status).toBe(400);
    expect(updated.body.validationErrors).toEqual({
      patternType: ['patternType must not be null.'],
      name: ['name is required and must be 1-200 characters.'],
      steps: ['steps must be an array of steps (an empty array for none).'],
    });
  });

  it('reports every problem of a body at once and changes nothing', async () => {
    const res = await api('put', `${BASE}/${existing.id}`, {
      name: '',
      daysOfWeek: '9',
      timeZone: 'Nowhere/Land',
      steps: [{ stepIndex: 0, stepType: 'RunProfile' }],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.validationErrors).sort()).toEqual([
      'daysOfWeek',
      'name',
      'steps[0].connectedSystemId',
      'steps[0].runProfileId',
      'timeZone',
    ]);
    const {
      rows: [s],
    } = await db.query(`SELECT name, days_of_week, time_zone FROM schedule WHERE id = $1`, [existing.id]);
    expect(s).toEqual({ name: 'Existing', days_of_week: '1', time_zone: 'UTC' });
    expect((await db.query(`SELECT count(*)::int AS n FROM schedule_step WHERE schedule_id = $1`, [existing.id])).rows[0].n).toBe(1);
  });

  it('a Manual schedule needs no pattern fields, but the values it carries must be well-formed', async () => {
    expect((await api('post', BASE, { name: 'Manual ok', triggerType: 'Manual', patternType: 'Interval' })).status).toBe(201);
    const res = await api('post', BASE, { name: 'Manual bad', triggerType: 'Manual', runTimes: '25:00' });
    expect(res).toMatchObject({ status: 400, body: { validationErrors: { runTimes: [expect.stringMatching(/'25:00' is not one/)] } } });
  });
});
