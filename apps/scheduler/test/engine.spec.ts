import { InitiatedByType } from '@meridian/domain';
import { findPowerShell, POWERSHELL_NOT_INSTALLED, SYSTEM_INITIATOR } from '@meridian/application';
import { processAlive, waitFor } from '@meridian/testing';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { SchedulerInstance, SchedulerTestBed } from './harness';

const API_KEY = { type: InitiatedByType.ApiKey, id: '7b1f3c2e-9a4d-4e6f-8b7a-1c2d3e4f5a6b', name: 'CI key' };

/** Writes nanosecond start/end stamps of a named run into trace/<execution>/, sleeping in between. */
const TRACE = `#!/bin/sh
d="trace/$MERIDIAN_SCHEDULE_EXECUTION_ID"
mkdir -p "$d"
date +%s%N > "$d/$1.start"
sleep "\${2:-0.5}"
date +%s%N > "$d/$1.end"
echo "hello from $1"
`;

/** Records its pid and a child's pid, then waits for the child (a long sleep). */
const SLEEPER = `#!/bin/sh
d="trace/$MERIDIAN_SCHEDULE_EXECUTION_ID"
mkdir -p "$d"
sleep 60 &
echo $! > "$d/child.pid"
echo $$ > "$d/self.pid"
wait
`;

describe('execution engine (real PostgreSQL and Redis, real child processes)', () => {
  let bed: SchedulerTestBed;
  let s: SchedulerInstance;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    bed = await SchedulerTestBed.start('engine');
    bed.script('trace.sh', TRACE);
    bed.script('sleeper.sh', SLEEPER);
    bed.script('fail.sh', '#!/bin/sh\necho "about to fail"\necho "boom: bad input" >&2\nexit 3\n');
    bed.script(
      'tools/env.sh',
      '#!/bin/sh\nd="$MERIDIAN_SCHEDULE_SCRIPTS_ROOT/trace/$MERIDIAN_SCHEDULE_EXECUTION_ID"\nmkdir -p "$d"\nenv > "$d/env"\npwd > "$d/pwd"\nfor a in "$@"; do echo "$a"; done > "$d/args"\n',
    );
    bed.file('work/.keep', '');
    // Secrets in the service's own environment must never reach a step.
    for (const [k, v] of Object.entries({
      DATABASE_URL: bed.db.url,
      MERIDIAN_ENCRYPTION_KEY: 'leak-canary-encryption-key',
      MERIDIAN_BOOTSTRAP_API_KEY: 'mer_leak_canary_bootstrap_key_000000',
      OIDC_CLIENT_ID: 'leak-canary-oidc',
    })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    s = await bed.instance();
    await waitFor(async () => s.leader.isLeader);
  });

  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await bed?.close();
  });

  const stamp = (executionId: string, name: string, edge: 'start' | 'end') =>
    BigInt(bed.read(`trace/${executionId}/${name}.${edge}`).trim());
  const run = async (scheduleId: string, statuses = ['Completed', 'Failed', 'Cancelled']) => {
    const view = await s.executions.startManual(scheduleId, API_KEY);
    return bed.waitForExecution(view.id, statuses);
  };

  it('runs a three-index schedule in order, the parallel pair overlapping in time', async () => {
    const scheduleId = await bed.schedule({
      name: 'Three stages',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        { stepIndex: 0, stepType: 'Executable', name: 'first', executablePath: 'trace.sh', arguments: 'first 0.3' },
        { stepIndex: 1, stepType: 'Executable', name: 'left', executablePath: 'trace.sh', arguments: 'left 1' },
        { stepIndex: 1, stepType: 'Executable', name: 'right', executablePath: 'trace.sh', arguments: 'right 1' },
        { stepIndex: 2, stepType: 'Executable', name: 'last', executablePath: 'trace.sh', arguments: 'last 0.3' },
      ],
    });
    const execution = await run(scheduleId);
    expect(execution).toMatchObject({
      status: 'Completed',
      total_steps: 3,
      current_step_index: 2,
      error_message: null,
      initiated_by_type: 'ApiKey',
    });
    const id = execution.id as string;

    // Process-recorded times: index 0 ends before index 1 starts; left and right overlap; both end before index 2 starts.
    expect(stamp(id, 'first', 'end')).toBeLessThanOrEqual(stamp(id, 'left', 'start'));
    expect(stamp(id, 'first', 'end')).toBeLessThanOrEqual(stamp(id, 'right', 'start'));
    expect(stamp(id, 'left', 'start')).toBeLessThan(stamp(id, 'right', 'end'));
    expect(stamp(id, 'right', 'start')).toBeLessThan(stamp(id, 'left', 'end'));
    expect(stamp(id, 'left', 'end')).toBeLessThanOrEqual(stamp(id, 'last', 'start'));
    expect(stamp(id, 'right', 'end')).toBeLessThanOrEqual(stamp(id, 'last', 'start'));

    // The recorded step times tell the same story.
    const steps = await bed.stepsOf(id);
    const byName = Object.fromEntries(steps.map((st) => [st.name, st]));
    expect(steps.map((st) => [st.step_index, st.name, st.status, st.execution_mode])).toEqual([
      [0, 'first', 'Completed', 'Sequential'],
      [1, 'left', 'Completed', 'Sequential'],
      [1, 'right', 'Completed', 'ParallelWithPrevious'],
      [2, 'last', 'Completed', 'Sequential'],
    ]);
    expect(byName.left.started_at.getTime()).toBe(byName.right.started_at.getTime());
    expect(byName.left.started_at.getTime()).toBeGreaterThanOrEqual(byName.first.completed_at.getTime());
    expect(byName.left.started_at.getTime()).toBeLessThan(byName.right.completed_at.getTime());
    expect(byName.last.started_at.getTime()).toBeGreaterThanOrEqual(
      Math.max(byName.left.completed_at.getTime(), byName.right.completed_at.getTime()),
    );

    // Output went to the scheduler log, named by step.
    await waitFor(async () => bed.logEntries().some((e) => e.message === "[Three stages #1 'right'] hello from right"));
    const {
      rows: [activity],
    } = await bed.sql.query(`SELECT status, initiated_by_type, initiated_by_name, objects_processed FROM activity WHERE id = $1`, [id]);
    expect(activity).toEqual({ status: 'Complete', initiated_by_type: 'ApiKey', initiated_by_name: 'CI key', objects_processed: 4 });
  });

  it('gives a process no shell, literal arguments, its working directory and an environment without secrets', async () => {
    const scheduleId = await bed.schedule({
      name: 'Env',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        {
          stepIndex: 0,
          stepType: 'Executable',
          name: 'env',
          executablePath: 'tools/env.sh',
          workingDirectory: 'work',
          arguments: `--name "Jane Doe" 'a;b' && $(id) >out *`,
        },
      ],
    });
    const execution = await run(scheduleId);
    expect(execution.status).toBe('Completed');
    const dir = `trace/${execution.id}`;
    expect(bed.read(`${dir}/args`).split('\n').filter(Boolean)).toEqual(['--name', 'Jane Doe', 'a;b', '&&', '$(id)', '>out', '*']);
    expect(existsSync(join(bed.scriptsRoot, 'work', 'out'))).toBe(false);
    expect(bed.read(`${dir}/pwd`).trim()).toBe(join(bed.scriptsRoot, 'work'));
    const env = Object.fromEntries(
      bed
        .read(`${dir}/env`)
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({
      MERIDIAN_SCHEDULE_EXECUTION_ID: execution.id,
      MERIDIAN_SCHEDULE_ID: scheduleId,
      MERIDIAN_SCHEDULE_NAME: 'Env',
      MERIDIAN_SCHEDULE_STEP_INDEX: '0',
      MERIDIAN_SCHEDULE_STEP_NAME: 'env',
    });
    const text = bed.read(`${dir}/env`);
    for (const secret of [
      'leak-canary',
      bed.db.url,
      'DATABASE_URL',
      'MERIDIAN_ENCRYPTION_KEY',
      'MERIDIAN_BOOTSTRAP_API_KEY',
      'OIDC_',
      'REDIS_URL',
    ])
      expect(text).not.toContain(secret);
    expect(
      Object.keys(env)
        .filter((k) => !k.startsWith('MERIDIAN_SCHEDULE_'))
        .sort(),
    ).toEqual(expect.arrayContaining(['PATH']));
    expect(
      Object.keys(env).filter(
        (k) =>
          !k.startsWith('MERIDIAN_SCHEDULE_') &&
          !['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(k),
      ),
    ).toEqual([]);
  });

  it('stops at a failing step without continueOnFailure, naming the step', async () => {
    const scheduleId = await bed.schedule({
      name: 'Stops',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        { stepIndex: 0, stepType: 'Executable', name: 'HR import', executablePath: 'fail.sh' },
        { stepIndex: 1, stepType: 'Executable', name: 'never', executablePath: 'trace.sh', arguments: 'never 0' },
      ],
    });
    const execution = await run(scheduleId);
    expect(execution).toMatchObject({
      status: 'Failed',
      error_message: "Step 0 'HR import' failed: exit code 3: boom: bad input",
      current_step_index: 0,
    });
    expect((await bed.stepsOf(execution.id)).map((st) => [st.name, st.status, st.error_message])).toEqual([
      ['HR import', 'Failed', 'exit code 3: boom: bad input'],
      ['never', 'Pending', null],
    ]);
    expect(existsSync(join(bed.scriptsRoot, 'trace', execution.id, 'never.start'))).toBe(false);
    const {
      rows: [activity],
    } = await bed.sql.query(`SELECT status, error_message FROM activity WHERE id = $1`, [execution.id]);
    expect(activity).toEqual({ status: 'FailedWithError', error_message: "Step 0 'HR import' failed: exit code 3: boom: bad input" });
    await waitFor(async () =>
      bed.logEntries().some((e) => e.level === 'Warning' && e.message === "[Stops #0 'HR import'] boom: bad input"),
    );
  });

  it('continues past a failing step with continueOnFailure and notes it', async () => {
    const scheduleId = await bed.schedule({
      name: 'Continues',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        { stepIndex: 0, stepType: 'Executable', name: 'flaky', executablePath: 'fail.sh', continueOnFailure: true },
        { stepIndex: 0, stepType: 'Executable', name: 'fine', executablePath: 'trace.sh', arguments: 'fine 0' },
        { stepIndex: 1, stepType: 'Executable', name: 'after', executablePath: 'trace.sh', arguments: 'after 0' },
      ],
    });
    const execution = await run(scheduleId);
    expect(execution).toMatchObject({
      status: 'Completed',
      current_step_index: 1,
      error_message:
        "Completed; 1 step failed and the execution continued (continueOnFailure): Step 0 'flaky' failed: exit code 3: boom: bad input",
    });
    expect((await bed.stepsOf(execution.id)).map((st) => [st.name, st.status])).toEqual([
      ['fine', 'Completed'],
      ['flaky', 'Failed'],
      ['after', 'Completed'],
    ]);
    const {
      rows: [activity],
    } = await bed.sql.query(`SELECT status FROM activity WHERE id = $1`, [execution.id]);
    expect(activity.status).toBe('CompleteWithError');
  });

  it('cancels a step that exceeds timeoutSeconds (its whole process group) and fails the execution', async () => {
    const scheduleId = await bed.schedule({
      name: 'Slow',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        { stepIndex: 0, stepType: 'Executable', name: 'sleeper', executablePath: 'sleeper.sh', timeoutSeconds: 2 },
        { stepIndex: 1, stepType: 'Executable', name: 'never', executablePath: 'trace.sh' },
      ],
    });
    const view = await s.executions.startManual(scheduleId, API_KEY);
    await waitFor(
      async () =>
        existsSync(join(bed.scriptsRoot, 'trace', view.id, 'child.pid')) && existsSync(join(bed.scriptsRoot, 'trace', view.id, 'self.pid')),
    );
    const pids = ['self', 'child'].map((n) => Number(bed.read(`trace/${view.id}/${n}.pid`)));
    expect(pids.every(processAlive)).toBe(true);
    const execution = await bed.waitForExecution(view.id, ['Failed', 'Completed']);
    expect(execution).toMatchObject({ status: 'Failed', error_message: "Step 0 'sleeper' failed: timed out after 2 s" });
    expect((await bed.stepsOf(view.id)).map((st) => [st.name, st.status, st.error_message])).toEqual([
      ['sleeper', 'Failed', 'timed out after 2 s'],
      ['never', 'Pending', null],
    ]);
    await waitFor(async () => pids.every((p) => !processAlive(p)));
  });

  it('cancelling a running execution kills its child processes, marks it Cancelled, and nothing overwrites that', async () => {
    const scheduleId = await bed.schedule({
      name: 'Cancel me',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        { stepIndex: 0, stepType: 'Executable', name: 'sleeper', executablePath: 'sleeper.sh' },
        { stepIndex: 0, stepType: 'Executable', name: 'quick', executablePath: 'trace.sh', arguments: 'quick 0' },
        { stepIndex: 1, stepType: 'Executable', name: 'later', executablePath: 'trace.sh' },
      ],
    });
    const view = await s.executions.startManual(scheduleId, API_KEY);
    await waitFor(
      async () =>
        existsSync(join(bed.scriptsRoot, 'trace', view.id, 'child.pid')) && existsSync(join(bed.scriptsRoot, 'trace', view.id, 'self.pid')),
    );
    const [step] = (await bed.stepsOf(view.id)).filter((st) => st.name === 'sleeper');
    await waitFor(async () => (await bed.stepsOf(view.id)).find((st) => st.name === 'quick')!.status === 'Completed');
    const pids = ['self', 'child'].map((n) => Number(bed.read(`trace/${view.id}/${n}.pid`)));
    expect(step.process_id).toBe(pids[0]);
    expect(pids.every(processAlive)).toBe(true);

    const cancelled = await s.executions.cancel(view.id, { type: InitiatedByType.User, id: null, name: 'Ada' });
    expect(cancelled).toMatchObject({ status: 'Cancelled', errorMessage: 'Cancelled by Ada.' });
    expect(cancelled.completedAt).not.toBeNull();
    await waitFor(async () => pids.every((p) => !processAlive(p)));
    await waitFor(async () => (await bed.stepsOf(view.id)).find((st) => st.name === 'sleeper')!.status === 'Cancelled');

    // More engine passes, and the killed process's exit, never overwrite Cancelled.
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 3; i++) await s.tick.tick();
    const after = await bed.waitForExecution(view.id, ['Cancelled', 'Completed', 'Failed']);
    expect(after).toMatchObject({ status: 'Cancelled', completed_at: new Date(cancelled.completedAt!), claimed_by: null });
    expect((await bed.stepsOf(view.id)).map((st) => [st.name, st.status])).toEqual([
      ['quick', 'Completed'],
      ['sleeper', 'Cancelled'],
      ['later', 'Cancelled'],
    ]);
    const { rows } = await bed.sql.query(
      `SELECT status, target_operation_type, initiated_by_name FROM activity WHERE target_id = $1 ORDER BY created`,
      [view.id],
    );
    expect(rows).toEqual([
      { status: 'Cancelled', target_operation_type: 'Execute', initiated_by_name: 'CI key' },
      { status: 'Complete', target_operation_type: 'Cancel', initiated_by_name: 'Ada' },
    ]);
    await expect(s.executions.cancel(view.id, SYSTEM_INITIATOR)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('fails a PowerShell step with the exact message when pwsh is not installed', async () => {
    bed.file('hello.ps1', 'Write-Output "hello"\n');
    const scheduleId = await bed.schedule({
      name: 'PS',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [{ stepIndex: 0, stepType: 'PowerShell', name: 'ps', scriptPath: 'hello.ps1' }],
    });
    const execution = await run(scheduleId);
    if (findPowerShell(process.env.PATH)) {
      expect(execution.status).toBe('Completed');
      await waitFor(async () => bed.logEntries().some((e) => e.message === "[PS #0 'ps'] hello"));
      return;
    }
    expect(execution).toMatchObject({ status: 'Failed', error_message: `Step 0 'ps' failed: ${POWERSHELL_NOT_INSTALLED}` });
    expect((await bed.stepsOf(execution.id))[0].error_message).toBe('PowerShell is not installed on this host');
  });

  it('refuses an executable that is missing or escapes the scripts root through a symbolic link', async () => {
    symlinkSync('/bin/sh', join(bed.scriptsRoot, 'escape.sh'));
    const scheduleId = await bed.schedule({
      name: 'Paths',
      triggerType: 'Manual',
      isEnabled: false,
      steps: [
        { stepIndex: 0, stepType: 'Executable', name: 'missing', executablePath: 'missing.sh', continueOnFailure: true },
        { stepIndex: 0, stepType: 'Executable', name: 'escape', executablePath: 'escape.sh', continueOnFailure: true },
      ],
    });
    const execution = await run(scheduleId);
    expect(execution.status).toBe('Completed');
    expect((await bed.stepsOf(execution.id)).map((st) => [st.name, st.status, st.error_message])).toEqual([
      ['escape', 'Failed', 'executablePath: The path "escape.sh" resolves (through a symbolic link) outside the scripts root.'],
      ['missing', 'Failed', 'executablePath: The file "missing.sh" does not exist under the scripts root.'],
    ]);
  });

  describe('RunProfile steps', () => {
    let systemId: number;
    let runProfileId: number;

    beforeAll(async () => {
      ({
        rows: [{ id: systemId }],
      } = await bed.sql.query(`INSERT INTO connected_system (name, connector_type, settings) VALUES ('HR', 'File', '{}') RETURNING id`));
      ({
        rows: [{ id: runProfileId }],
      } = await bed.sql.query(
        `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Full sync', 'FullSynchronisation') RETURNING id`,
        [systemId],
      ));
    });

    const stepOf = async (executionId: string, name: string) => (await bed.stepsOf(executionId)).find((st) => st.name === name)!;

    it('runs the profile as an activity on a worker and follows it to its end', async () => {
      const scheduleId = await bed.schedule({
        name: 'Sync then script',
        triggerType: 'Manual',
        isEnabled: false,
        steps: [
          { stepIndex: 0, stepType: 'RunProfile', name: 'HR sync', connectedSystemId: systemId, runProfileId },
          { stepIndex: 1, stepType: 'Executable', name: 'after', executablePath: 'trace.sh', arguments: 'after 0' },
        ],
      });
      const view = await s.executions.startManual(scheduleId, API_KEY);
      const queued = await waitFor(async () => {
        const st = await stepOf(view.id, 'HR sync');
        return st.activity_id && st.status === 'Queued' ? st : null;
      });
      const {
        rows: [activity],
      } = await bed.sql.query(`SELECT * FROM activity WHERE id = $1`, [queued.activity_id]);
      expect(activity).toMatchObject({
        status: 'InProgress',
        target_type: 'ConnectedSystemRunProfile',
        target_operation_type: 'Execute',
        connected_system_id: systemId,
        connected_system_run_profile_id: runProfileId,
        parent_activity_id: view.id,
        initiated_by_type: 'ApiKey',
        initiated_by_name: 'CI key',
        target_context: 'HR',
      });
      expect(queued.task_id).toBe(queued.activity_id);

      // A worker claims it, then completes it with warnings.
      await bed.sql.query(`UPDATE activity SET claimed_at = now(), claimed_by = 'worker:1' WHERE id = $1`, [queued.activity_id]);
      await waitFor(async () => (await stepOf(view.id, 'HR sync')).status === 'Waiting');
      const detail = await s.executions.get(view.id);
      expect(detail.steps[0]).toMatchObject({
        stepType: 'RunProfile',
        status: 'Waiting',
        connectedSystemId: systemId,
        activityId: queued.activity_id,
        activityStatus: 'InProgress',
      });
      await bed.sql.query(`UPDATE activity SET status = 'CompleteWithWarning', completed = now() WHERE id = $1`, [queued.activity_id]);
      const execution = await bed.waitForExecution(view.id, ['Completed', 'Failed']);
      expect(execution.status).toBe('Completed');
      expect((await s.executions.get(view.id)).steps.map((st) => [st.name, st.status, st.activityStatus])).toEqual([
        ['HR sync', 'Completed with Warning', 'CompleteWithWarning'],
        ['after', 'Completed', null],
      ]);
      const {
        rows: [own],
      } = await bed.sql.query(`SELECT status FROM activity WHERE id = $1`, [view.id]);
      expect(own.status).toBe('CompleteWithWarning');
    });

    it("fails the execution when the run fails, with the activity's error", async () => {
      const scheduleId = await bed.schedule({
        name: 'Sync fails',
        triggerType: 'Manual',
        isEnabled: false,
        steps: [{ stepIndex: 0, stepType: 'RunProfile', name: 'HR sync', connectedSystemId: systemId, runProfileId }],
      });
      const view = await s.executions.startManual(scheduleId, API_KEY);
      const st = await waitFor(async () => ((await stepOf(view.id, 'HR sync')).activity_id ? stepOf(view.id, 'HR sync') : null));
      await bed.sql.query(
        `UPDATE activity SET status = 'FailedWithError', completed = now(), error_message = 'engine not available' WHERE id = $1`,
        [st.activity_id],
      );
      const execution = await bed.waitForExecution(view.id, ['Completed', 'Failed']);
      expect(execution.error_message).toBe("Step 0 'HR sync' failed: engine not available");
    });

    it('times out a run that no worker picks up: the step fails and the activity is cancelled', async () => {
      const scheduleId = await bed.schedule({
        name: 'Sync times out',
        triggerType: 'Manual',
        isEnabled: false,
        steps: [{ stepIndex: 0, stepType: 'RunProfile', name: 'HR sync', connectedSystemId: systemId, runProfileId, timeoutSeconds: 1 }],
      });
      const view = await s.executions.startManual(scheduleId, API_KEY);
      const execution = await bed.waitForExecution(view.id, ['Completed', 'Failed']);
      expect(execution.error_message).toBe("Step 0 'HR sync' failed: timed out after 1 s");
      const st = await stepOf(view.id, 'HR sync');
      const {
        rows: [activity],
      } = await bed.sql.query(`SELECT status, cancel_requested FROM activity WHERE id = $1`, [st.activity_id]);
      expect(activity).toEqual({ status: 'Cancelled', cancel_requested: true });
    });

    it('cancelling an execution cancels its run-profile activities (outright when unclaimed, by request when a worker has it)', async () => {
      const {
        rows: [{ id: otherProfile }],
      } = await bed.sql.query(
        `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type) VALUES ($1, 'Delta sync', 'DeltaSynchronisation') RETURNING id`,
        [systemId],
      );
      const scheduleId = await bed.schedule({
        name: 'Two syncs',
        triggerType: 'Manual',
        isEnabled: false,
        steps: [
          { stepIndex: 0, stepType: 'RunProfile', name: 'full', connectedSystemId: systemId, runProfileId },
          { stepIndex: 0, stepType: 'RunProfile', name: 'delta', connectedSystemId: systemId, runProfileId: otherProfile },
        ],
      });
      const view = await s.executions.startManual(scheduleId, API_KEY);
      const steps = await waitFor(async () => {
        const all = await bed.stepsOf(view.id);
        return all.every((st) => st.activity_id) ? all : null;
      });
      const full = steps.find((st) => st.name === 'full')!;
      const delta = steps.find((st) => st.name === 'delta')!;
      await bed.sql.query(`UPDATE activity SET claimed_at = now(), claimed_by = 'worker:1' WHERE id = $1`, [full.activity_id]);
      await waitFor(async () => (await stepOf(view.id, 'full')).status === 'Waiting');
      const cancelled = await s.executions.cancel(view.id, SYSTEM_INITIATOR);
      expect(cancelled.status).toBe('Cancelled');
      expect(cancelled.steps.map((st) => [st.name, st.status])).toEqual([
        ['delta', 'Cancelled'],
        ['full', 'Cancelled'],
      ]);
      const { rows } = await bed.sql.query(`SELECT id, status, cancel_requested FROM activity WHERE id = ANY($1::uuid[])`, [
        [full.activity_id, delta.activity_id],
      ]);
      expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.cancel_requested]]))).toEqual({
        [full.activity_id]: ['InProgress', true],
        [delta.activity_id]: ['Cancelled', true],
      });
    });

    it('takes over an execution whose scheduler stopped heart-beating: local steps fail as interrupted, run-profile steps are followed on', async () => {
      const scheduleId = await bed.schedule({
        name: 'Orphaned',
        triggerType: 'Manual',
        isEnabled: false,
        steps: [
          { stepIndex: 0, stepType: 'RunProfile', name: 'sync', connectedSystemId: systemId, runProfileId, continueOnFailure: true },
          { stepIndex: 0, stepType: 'Executable', name: 'script', executablePath: 'trace.sh', continueOnFailure: true },
        ],
      });
      // The state a scheduler that died mid-run leaves behind, written directly and in one transaction, so
      // that the running scheduler cannot take the execution over before its steps exist.
      await bed.sql.query('BEGIN');
      const {
        rows: [{ id: executionId }],
      } = await bed.sql.query(
        `INSERT INTO schedule_execution (schedule_id, schedule_name, status, total_steps, started_at, initiated_by_type, claimed_by, heartbeat_at)
         VALUES ($1, 'Orphaned', 'InProgress', 1, now(), 'NotSet', 'dead-host:1:abc', now() - interval '1 hour') RETURNING id`,
        [scheduleId],
      );
      const {
        rows: [{ id: activityId }],
      } = await bed.sql.query(
        `INSERT INTO activity (status, target_type, target_operation_type, initiated_by_type, connected_system_id, connected_system_run_profile_id)
         VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', 'System', $1, $2) RETURNING id`,
        [systemId, runProfileId],
      );
      const { rows: defs } = await bed.sql.query(`SELECT id, name FROM schedule_step WHERE schedule_id = $1`, [scheduleId]);
      for (const def of defs) {
        await bed.sql.query(
          `INSERT INTO schedule_execution_step (execution_id, step_id, step_index, name, step_type, execution_mode, continue_on_failure, status, started_at, activity_id, process_id,
                                                connected_system_id, run_profile_id)
           VALUES ($1, $2, 0, $3, $4, 'Sequential', true, $5, now(), $6, $7, $8, $9)`,
          [
            executionId,
            def.id,
            def.name,
            def.name === 'sync' ? 'RunProfile' : 'Executable',
            def.name === 'sync' ? 'Queued' : 'Processing',
            def.name === 'sync' ? activityId : null,
            def.name === 'sync' ? null : 999_999,
            systemId,
            runProfileId,
          ],
        );
      }
      await bed.sql.query('COMMIT');
      await waitFor(async () => (await bed.executionsOf(scheduleId))[0].claimed_by === s.runner.instanceId, 30_000);
      await waitFor(async () => (await stepOf(executionId, 'script')).status === 'Failed', 30_000);
      expect((await stepOf(executionId, 'script')).error_message).toBe(
        'interrupted: the scheduler running this step (dead-host:1:abc) stopped before it finished; its outcome is unknown.',
      );
      expect((await stepOf(executionId, 'sync')).status).toBe('Queued');
      await bed.sql.query(`UPDATE activity SET status = 'Complete', completed = now(), claimed_at = now() WHERE id = $1`, [activityId]);
      const execution = await bed.waitForExecution(executionId, ['Completed', 'Failed']);
      expect(execution.status).toBe('Completed');
      expect((await bed.stepsOf(executionId)).map((st) => [st.name, st.status])).toEqual([
        ['script', 'Failed'],
        ['sync', 'Completed'],
      ]);
      await waitFor(async () =>
        bed.logEntries().some((e) => e.level === 'Warning' && e.message.startsWith(`Took over schedule execution ${executionId}`)),
      );
    });
  });
});
