import { ValidationErrorCollector, type ValidationErrors } from '../errors/domain-error';
import { sqlConnectionStringProblem } from './connection-string';
import { relativePathProblem } from '../common/relative-path';

export const SCHEDULE_STEP_TYPES = ['RunProfile', 'PowerShell', 'Executable', 'SqlScript'] as const;
export type ScheduleStepType = (typeof SCHEDULE_STEP_TYPES)[number];
/** The step types by name, for code and SQL that single one out (`ScheduleStepType.RunProfile`). */
export const ScheduleStepType = {
  RunProfile: 'RunProfile',
  PowerShell: 'PowerShell',
  Executable: 'Executable',
  SqlScript: 'SqlScript',
} as const satisfies { [K in ScheduleStepType]: K };

export const STEP_EXECUTION_MODES = ['Sequential', 'ParallelWithPrevious'] as const;
export type StepExecutionMode = (typeof STEP_EXECUTION_MODES)[number];

export const MAX_SCHEDULE_STEPS = 100;
export const MIN_STEP_TIMEOUT_SECONDS = 1;
export const MAX_STEP_TIMEOUT_SECONDS = 86_400;
export const MAX_STEP_NAME_LENGTH = 300;
export const MAX_STEP_ARGUMENTS_LENGTH = 4000;
export const MAX_SCRIPT_PATH_LENGTH = 1000;
const MAX_INT = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type TextField = 'scriptPath' | 'arguments' | 'executablePath' | 'workingDirectory' | 'sqlConnectionString' | 'sqlScriptPath';
type TypeField = TextField | 'connectedSystemId' | 'runProfileId';

/** The fields each step type uses; any other type-specific field must be absent or null. */
export const STEP_TYPE_FIELDS: Readonly<Record<ScheduleStepType, { required: readonly TypeField[]; optional: readonly TypeField[] }>> = {
  RunProfile: { required: ['connectedSystemId', 'runProfileId'], optional: [] },
  Executable: { required: ['executablePath'], optional: ['arguments', 'workingDirectory'] },
  PowerShell: { required: ['scriptPath'], optional: ['arguments'] },
  SqlScript: { required: ['sqlConnectionString', 'sqlScriptPath'], optional: [] },
};

const TYPE_FIELDS: readonly TypeField[] = [
  'connectedSystemId',
  'runProfileId',
  'scriptPath',
  'arguments',
  'executablePath',
  'workingDirectory',
  'sqlConnectionString',
  'sqlScriptPath',
];
const PATH_FIELDS: readonly TextField[] = ['scriptPath', 'executablePath', 'workingDirectory', 'sqlScriptPath'];
const KNOWN_FIELDS = new Set([
  'id',
  'stepIndex',
  'name',
  'executionMode',
  'stepType',
  'continueOnFailure',
  'timeoutSeconds',
  ...TYPE_FIELDS,
]);

/** A step as validated from a request: clean values, executionMode derived from the index order. */
export interface ScheduleStepDraft {
  /** Position in the request's array, for field names (`steps[2].runProfileId`). */
  position: number;
  id: string | null;
  stepIndex: number;
  name: string | null;
  executionMode: StepExecutionMode;
  stepType: ScheduleStepType;
  continueOnFailure: boolean;
  timeoutSeconds: number | null;
  connectedSystemId: number | null;
  runProfileId: number | null;
  scriptPath: string | null;
  arguments: string | null;
  executablePath: string | null;
  workingDirectory: string | null;
  /** As sent: it may still carry the `*****` mask of a stored password. */
  sqlConnectionString: string | null;
  sqlScriptPath: string | null;
}

/**
 * Checks a path an administrator gives for a script, executable, SQL script or working directory:
 * relative to the scripts root (MERIDIAN_SCRIPTS_ROOT), no `..` segments, not absolute, no control
 * characters. Returns a message (to follow the field name) or null.
 */
export function relativeScriptPathProblem(path: string): string | null {
  return relativePathProblem(path, { description: 'scripts root (MERIDIAN_SCRIPTS_ROOT)', maxLength: MAX_SCRIPT_PATH_LENGTH });
}

/**
 * Validates the `steps` of a schedule request (spec 2.7): field types and ranges, the fields each
 * step type needs, contiguous step indices from 0, unique ids. Database checks (the connected system
 * and run profile exist, ids belong to the schedule) are the caller's. The result is ordered by
 * stepIndex (request order within an index); the first step of an index is `Sequential`, the others
 * `ParallelWithPrevious`, whatever the request said.
 */
export function validateScheduleSteps(input: unknown): { steps: ScheduleStepDraft[]; errors: ValidationErrors } {
  const errors = new ValidationErrorCollector();
  const add = (field: string, message: string) => errors.add(field, message);
  if (!Array.isArray(input)) {
    add('steps', 'steps must be an array of steps (an empty array for none).');
    return { steps: [], errors: errors.byField };
  }
  if (input.length > MAX_SCHEDULE_STEPS) {
    add('steps', `A schedule has at most ${MAX_SCHEDULE_STEPS} steps; got ${input.length}.`);
    return { steps: [], errors: errors.byField };
  }
  const drafts: ScheduleStepDraft[] = [];
  const seenIds = new Map<string, number>();
  input.forEach((raw, position) => {
    const at = `steps[${position}]`;
    const f = (field: string) => `${at}.${field}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      add(at, `${at} must be an object.`);
      return;
    }
    const s = raw as Record<string, unknown>;
    const before = errors.fieldCount;
    for (const key of Object.keys(s)) if (!KNOWN_FIELDS.has(key)) add(f(key), `${f(key)} is not a known field.`);

    let id: string | null = null;
    if (s.id !== undefined && s.id !== null) {
      if (typeof s.id !== 'string' || !UUID.test(s.id))
        add(f('id'), `${f('id')} must be the UUID of an existing step of this schedule, or absent for a new step.`);
      else {
        id = s.id.toLowerCase();
        if (seenIds.has(id)) add(f('id'), `${f('id')} repeats the id of steps[${seenIds.get(id)}]; each step appears once.`);
        else seenIds.set(id, position);
      }
    }
    const stepIndex = s.stepIndex;
    if (!Number.isInteger(stepIndex) || (stepIndex as number) < 0 || (stepIndex as number) >= MAX_SCHEDULE_STEPS) {
      add(f('stepIndex'), `${f('stepIndex')} is required: a whole number from 0 (steps with the same index run in parallel).`);
    }
    const stepType = s.stepType as ScheduleStepType;
    if (!SCHEDULE_STEP_TYPES.includes(stepType)) add(f('stepType'), `${f('stepType')} must be one of ${SCHEDULE_STEP_TYPES.join(', ')}.`);
    if (s.executionMode !== undefined && s.executionMode !== null && !STEP_EXECUTION_MODES.includes(s.executionMode as StepExecutionMode)) {
      add(f('executionMode'), `${f('executionMode')} must be Sequential or ParallelWithPrevious (it follows from stepIndex).`);
    }
    let name: string | null = null;
    if (s.name !== undefined && s.name !== null) {
      if (typeof s.name !== 'string' || s.name.trim().length > MAX_STEP_NAME_LENGTH)
        add(f('name'), `${f('name')} must be text of at most ${MAX_STEP_NAME_LENGTH} characters.`);
      else name = s.name.trim() || null;
    }
    if (s.continueOnFailure !== undefined && s.continueOnFailure !== null && typeof s.continueOnFailure !== 'boolean') {
      add(f('continueOnFailure'), `${f('continueOnFailure')} must be true or false.`);
    }
    const timeout = s.timeoutSeconds;
    if (
      timeout !== undefined &&
      timeout !== null &&
      (!Number.isInteger(timeout) || (timeout as number) < MIN_STEP_TIMEOUT_SECONDS || (timeout as number) > MAX_STEP_TIMEOUT_SECONDS)
    ) {
      add(
        f('timeoutSeconds'),
        `${f('timeoutSeconds')} must be a whole number of seconds from ${MIN_STEP_TIMEOUT_SECONDS} to ${MAX_STEP_TIMEOUT_SECONDS}, or null for no timeout.`,
      );
    }

    const values: Partial<Record<TypeField, string | number>> = {};
    for (const field of ['connectedSystemId', 'runProfileId'] as const) {
      const v = s[field];
      if (v === undefined || v === null) continue;
      if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_INT)
        add(f(field), `${f(field)} must be a positive whole number.`);
      else values[field] = v as number;
    }
    for (const field of [
      'scriptPath',
      'arguments',
      'executablePath',
      'workingDirectory',
      'sqlConnectionString',
      'sqlScriptPath',
    ] as const) {
      const v = s[field];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') {
        add(f(field), `${f(field)} must be text.`);
        continue;
      }
      const text = v.trim();
      if (!text) continue;
      if (PATH_FIELDS.includes(field)) {
        const problem = relativeScriptPathProblem(text);
        if (problem) add(f(field), `${f(field)} ${problem}`);
      } else if (field === 'arguments' && text.length > MAX_STEP_ARGUMENTS_LENGTH) {
        add(f(field), `${f(field)} must be at most ${MAX_STEP_ARGUMENTS_LENGTH} characters.`);
      } else if (field === 'sqlConnectionString') {
        const problem = sqlConnectionStringProblem(text);
        if (problem) add(f(field), `${f(field)} ${problem}`);
      }
      values[field] = text;
    }
    if (SCHEDULE_STEP_TYPES.includes(stepType)) {
      const { required, optional } = STEP_TYPE_FIELDS[stepType];
      for (const field of required) {
        if (values[field] === undefined && !errors.has(f(field))) add(f(field), `${f(field)} is required for ${stepType} steps.`);
      }
      for (const field of TYPE_FIELDS) {
        if (!required.includes(field) && !optional.includes(field) && values[field] !== undefined) {
          add(f(field), `${f(field)} is not used by ${stepType} steps; leave it out or send null.`);
        }
      }
    }
    if (errors.fieldCount !== before) return;
    const text = (field: TextField) => (values[field] as string | undefined) ?? null;
    drafts.push({
      position,
      id,
      stepIndex: stepIndex as number,
      name,
      executionMode: 'Sequential',
      stepType,
      continueOnFailure: s.continueOnFailure === true,
      timeoutSeconds: (timeout as number | null | undefined) ?? null,
      connectedSystemId: (values.connectedSystemId as number | undefined) ?? null,
      runProfileId: (values.runProfileId as number | undefined) ?? null,
      scriptPath: text('scriptPath'),
      arguments: text('arguments'),
      executablePath: text('executablePath'),
      workingDirectory: text('workingDirectory'),
      sqlConnectionString: text('sqlConnectionString'),
      sqlScriptPath: text('sqlScriptPath'),
    });
  });
  if (errors.hasErrors) return { steps: [], errors: errors.byField };

  const ordered = [...drafts].sort((a, b) => a.stepIndex - b.stepIndex || a.position - b.position);
  let expected = 0;
  for (const step of ordered) {
    if (step.stepIndex > expected) {
      add(
        `steps[${step.position}].stepIndex`,
        `steps[${step.position}].stepIndex ${step.stepIndex} leaves a gap: step indices run from 0 without gaps, and no step has index ${expected}.`,
      );
      break;
    }
    expected = step.stepIndex + 1;
  }
  ordered.forEach((step, i) => {
    step.executionMode = i > 0 && ordered[i - 1].stepIndex === step.stepIndex ? 'ParallelWithPrevious' : 'Sequential';
  });
  return { steps: errors.hasErrors ? [] : ordered, errors: errors.byField };
}

/** How many sequential stages (distinct step indices) a list of steps has. */
export function stepStageCount(steps: readonly { stepIndex: number }[]): number {
  return new Set(steps.map((s) => s.stepIndex)).size;
}
