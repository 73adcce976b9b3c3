import { relativeScriptPathProblem, stepStageCount, validateScheduleSteps } from './schedule-steps';

const RP = { stepType: 'RunProfile', connectedSystemId: 1, runProfileId: 2 };
const EXE = { stepType: 'Executable', executablePath: 'bin/export.sh' };
const PS = { stepType: 'PowerShell', scriptPath: 'scripts/notify.ps1' };
const SQL = { stepType: 'SqlScript', sqlConnectionString: 'postgres://u:p@db:5432/hr', sqlScriptPath: 'sql/cleanup.sql' };

describe('validateScheduleSteps', () => {
  it('accepts every step type, orders by stepIndex and derives executionMode', () => {
    const { steps, errors } = validateScheduleSteps([
      { ...EXE, stepIndex: 2, arguments: '--full "a b"', workingDirectory: 'bin', executionMode: 'ParallelWithPrevious' },
      { ...RP, stepIndex: 0, name: '  HR import  ', continueOnFailure: true, timeoutSeconds: 3600 },
      { ...PS, stepIndex: 1, arguments: '-Verbose' },
      { ...SQL, stepIndex: 1, id: 'A1B2C3D4-0000-4000-8000-000000000001', executionMode: 'Sequential' },
    ]);
    expect(errors).toEqual({});
    expect(steps.map((s) => [s.position, s.stepIndex, s.executionMode, s.stepType])).toEqual([
      [1, 0, 'Sequential', 'RunProfile'],
      [2, 1, 'Sequential', 'PowerShell'],
      [3, 1, 'ParallelWithPrevious', 'SqlScript'],
      [0, 2, 'Sequential', 'Executable'],
    ]);
    expect(steps[0]).toEqual({
      position: 1,
      id: null,
      stepIndex: 0,
      name: 'HR import',
      executionMode: 'Sequential',
      stepType: 'RunProfile',
      continueOnFailure: true,
      timeoutSeconds: 3600,
      connectedSystemId: 1,
      runProfileId: 2,
      scriptPath: null,
      arguments: null,
      executablePath: null,
      workingDirectory: null,
      sqlConnectionString: null,
      sqlScriptPath: null,
    });
    expect(steps[2]).toMatchObject({
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      continueOnFailure: false,
      timeoutSeconds: null,
      sqlScriptPath: 'sql/cleanup.sql',
    });
    expect(steps[3]).toMatchObject({ arguments: '--full "a b"', workingDirectory: 'bin' });
    expect(stepStageCount(steps)).toBe(3);
  });

  it('accepts no steps, and nulls for fields a step type does not use', () => {
    expect(validateScheduleSteps([])).toEqual({ steps: [], errors: {} });
    expect(
      validateScheduleSteps([{ ...RP, stepIndex: 0, executablePath: null, sqlConnectionString: null, timeoutSeconds: null, name: null }])
        .errors,
    ).toEqual({});
  });

  it.each<[string, unknown, string, RegExp]>([
    ['steps that are not an array', { a: 1 }, 'steps', /must be an array/],
    ['too many steps', Array.from({ length: 101 }, (_, i) => ({ ...EXE, stepIndex: i })), 'steps', /at most 100 steps/],
    ['a step that is not an object', ['x'], 'steps[0]', /must be an object/],
    ['an unknown field', [{ ...EXE, stepIndex: 0, command: 'rm' }], 'steps[0].command', /not a known field/],
    ['a missing stepIndex', [{ ...EXE }], 'steps[0].stepIndex', /stepIndex is required: a whole number from 0/],
    ['a negative stepIndex', [{ ...EXE, stepIndex: -1 }], 'steps[0].stepIndex', /whole number from 0/],
    ['a fractional stepIndex', [{ ...EXE, stepIndex: 0.5 }], 'steps[0].stepIndex', /whole number from 0/],
    [
      'a gap in the indices',
      [
        { ...EXE, stepIndex: 0 },
        { ...EXE, stepIndex: 2 },
      ],
      'steps[1].stepIndex',
      /leaves a gap.*no step has index 1/,
    ],
    ['indices not starting at 0', [{ ...EXE, stepIndex: 1 }], 'steps[0].stepIndex', /no step has index 0/],
    ['an unknown step type', [{ stepType: 'Shell', stepIndex: 0 }], 'steps[0].stepType', /RunProfile, PowerShell, Executable, SqlScript/],
    ['a missing step type', [{ stepIndex: 0 }], 'steps[0].stepType', /must be one of/],
    [
      'an unknown execution mode',
      [{ ...EXE, stepIndex: 0, executionMode: 'Parallel' }],
      'steps[0].executionMode',
      /Sequential or ParallelWithPrevious/,
    ],
    ['a timeout of 0', [{ ...EXE, stepIndex: 0, timeoutSeconds: 0 }], 'steps[0].timeoutSeconds', /from 1 to 86400/],
    ['a timeout over a day', [{ ...EXE, stepIndex: 0, timeoutSeconds: 86_401 }], 'steps[0].timeoutSeconds', /from 1 to 86400/],
    ['a timeout as text', [{ ...EXE, stepIndex: 0, timeoutSeconds: '60' }], 'steps[0].timeoutSeconds', /whole number of seconds/],
    ['continueOnFailure as text', [{ ...EXE, stepIndex: 0, continueOnFailure: 'yes' }], 'steps[0].continueOnFailure', /true or false/],
    ['a long name', [{ ...EXE, stepIndex: 0, name: 'x'.repeat(301) }], 'steps[0].name', /at most 300/],
    ['a malformed id', [{ ...EXE, stepIndex: 0, id: '42' }], 'steps[0].id', /UUID of an existing step/],
    [
      'a repeated id',
      [
        { ...EXE, stepIndex: 0, id: 'a1b2c3d4-0000-4000-8000-000000000001' },
        { ...EXE, stepIndex: 1, id: 'A1B2C3D4-0000-4000-8000-000000000001' },
      ],
      'steps[1].id',
      /repeats the id of steps\[0\]/,
    ],
    [
      'RunProfile without a connected system',
      [{ ...RP, stepIndex: 0, connectedSystemId: undefined }],
      'steps[0].connectedSystemId',
      /required for RunProfile steps/,
    ],
    [
      'RunProfile without a run profile',
      [{ ...RP, stepIndex: 0, runProfileId: null }],
      'steps[0].runProfileId',
      /required for RunProfile steps/,
    ],
    ['RunProfile with a zero id', [{ ...RP, stepIndex: 0, runProfileId: 0 }], 'steps[0].runProfileId', /positive whole number/],
    [
      'RunProfile with an executable',
      [{ ...RP, stepIndex: 0, executablePath: 'x.sh' }],
      'steps[0].executablePath',
      /not used by RunProfile steps/,
    ],
    [
      'Executable without a path',
      [{ stepType: 'Executable', stepIndex: 0, executablePath: '  ' }],
      'steps[0].executablePath',
      /required for Executable steps/,
    ],
    [
      'Executable with an absolute path',
      [{ ...EXE, stepIndex: 0, executablePath: '/usr/bin/env' }],
      'steps[0].executablePath',
      /relative to the scripts root.*not absolute/,
    ],
    [
      'Executable with a Windows path',
      [{ ...EXE, stepIndex: 0, executablePath: 'C:\\tools\\x.exe' }],
      'steps[0].executablePath',
      /not absolute/,
    ],
    [
      'Executable escaping with ..',
      [{ ...EXE, stepIndex: 0, executablePath: 'bin/../../etc/passwd' }],
      'steps[0].executablePath',
      /must not contain "\.\." segments/,
    ],
    [
      'a working directory escaping with ..',
      [{ ...EXE, stepIndex: 0, workingDirectory: '..' }],
      'steps[0].workingDirectory',
      /"\.\." segments/,
    ],
    ['Executable with a run profile', [{ ...EXE, stepIndex: 0, runProfileId: 3 }], 'steps[0].runProfileId', /not used by Executable steps/],
    ['long arguments', [{ ...EXE, stepIndex: 0, arguments: 'a'.repeat(4001) }], 'steps[0].arguments', /at most 4000/],
    ['PowerShell without a script', [{ stepType: 'PowerShell', stepIndex: 0 }], 'steps[0].scriptPath', /required for PowerShell steps/],
    [
      'PowerShell with an absolute script',
      [{ ...PS, stepIndex: 0, scriptPath: '\\\\server\\share\\x.ps1' }],
      'steps[0].scriptPath',
      /not absolute/,
    ],
    [
      'PowerShell with a working directory',
      [{ ...PS, stepIndex: 0, workingDirectory: 'x' }],
      'steps[0].workingDirectory',
      /not used by PowerShell steps/,
    ],
    [
      'SqlScript without a connection string',
      [{ ...SQL, stepIndex: 0, sqlConnectionString: undefined }],
      'steps[0].sqlConnectionString',
      /required for SqlScript steps/,
    ],
    [
      'SqlScript without a script',
      [{ ...SQL, stepIndex: 0, sqlScriptPath: undefined }],
      'steps[0].sqlScriptPath',
      /required for SqlScript steps/,
    ],
    [
      'SqlScript with an unsupported scheme',
      [{ ...SQL, stepIndex: 0, sqlConnectionString: 'mssql://u:p@db/hr' }],
      'steps[0].sqlConnectionString',
      /scheme 'mssql' is not supported/,
    ],
    [
      'SqlScript with a key=value string',
      [{ ...SQL, stepIndex: 0, sqlConnectionString: 'Host=db;Password=p' }],
      'steps[0].sqlConnectionString',
      /must be a postgres:\/\//,
    ],
    [
      'SqlScript with an escaping script',
      [{ ...SQL, stepIndex: 0, sqlScriptPath: '../x.sql' }],
      'steps[0].sqlScriptPath',
      /"\.\." segments/,
    ],
    ['a path that is not text', [{ ...EXE, stepIndex: 0, executablePath: 42 }], 'steps[0].executablePath', /must be text/],
  ])('rejects %s, naming the field', (_, input, field, message) => {
    const { steps, errors } = validateScheduleSteps(input);
    expect(steps).toEqual([]);
    expect(Object.keys(errors)).toContain(field);
    expect(errors[field].join(' ')).toMatch(message);
  });

  it('never echoes a connection string in its errors', () => {
    const { errors } = validateScheduleSteps([{ ...SQL, stepIndex: 0, sqlConnectionString: 'mssql://sa:TopSecret1@db/hr' }]);
    expect(JSON.stringify(errors)).not.toContain('TopSecret1');
  });
});

describe('relativeScriptPathProblem', () => {
  it.each(['run.sh', 'bin/export.sh', 'a/b/c.sh', 'scripts/with space.ps1', './local.sh'])('accepts %j', (p) =>
    expect(relativeScriptPathProblem(p)).toBeNull(),
  );
  it.each<[string, RegExp]>([
    ['', /empty/],
    ['/etc/passwd', /not absolute/],
    ['~/x.sh', /not absolute/],
    ['..\\x', /"\.\."/],
    ['a/../b', /"\.\."/],
    ['a\u0007b', /control/],
    ['x'.repeat(1001), /1000/],
  ])('refuses %j', (p, message) => expect(relativeScriptPathProblem(p)).toMatch(message));
});
