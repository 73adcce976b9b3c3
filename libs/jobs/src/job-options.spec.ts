import { Queue } from 'bullmq';
import { randomBytes, randomUUID } from 'node:crypto';
import { HISTORY_CLEANUP_EVERY_MS, HOUSEKEEPING_EVERY_MS, JOB_DEFINITIONS } from './job-options';
import { JobName, MERIDIAN_QUEUE, RUNS_QUEUE } from './job-names';
import { JobQueue } from './job-queue.service';
import { redisConnection } from './redis-connection';

describe('job definitions', () => {
  it('define every job with a deterministic id BullMQ accepts', () => {
    for (const name of Object.values(JobName)) {
      const def = JOB_DEFINITIONS[name];
      expect(def).toBeDefined();
      if (name === JobName.Housekeeping || name === JobName.HistoryCleanup) {
        // A repeatable job with no payload: one fixed scheduler id, whatever the repetition.
        expect(def.jobId({} as never)).toBe(name);
        continue;
      }
      const id = randomUUID();
      const payload = { probeId: id, activityId: id } as never;
      expect(def.jobId(payload)).toBe(def.jobId(payload));
      expect(def.jobId(payload)).toContain(id);
      expect(def.jobId(payload)).not.toContain(':');
      expect(def.options.removeOnComplete).toBeTruthy();
    }
  });

  it('put run profiles on their own queue, so long runs never starve deletions and housekeeping', () => {
    expect(JOB_DEFINITIONS[JobName.RunProfile].queue).toBe(RUNS_QUEUE);
    expect(JOB_DEFINITIONS[JobName.DeleteConnectedSystem].queue).toBe(MERIDIAN_QUEUE);
    expect(JOB_DEFINITIONS[JobName.Housekeeping].queue).toBe(MERIDIAN_QUEUE);
    expect(JOB_DEFINITIONS[JobName.HistoryCleanup].queue).toBe(MERIDIAN_QUEUE);
  });

  it('schedule housekeeping and the daily history cleanup once each however many workers ask (real Redis)', async () => {
    const prefix = `meridian-test-${randomBytes(6).toString('hex')}`;
    const connection = redisConnection(process.env.MERIDIAN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const jobs = new Queue(MERIDIAN_QUEUE, { prefix, connection });
    const runs = new Queue(RUNS_QUEUE, { prefix, connection });
    try {
      const queue = new JobQueue(jobs, runs);
      await queue.scheduleHousekeeping();
      await queue.scheduleHousekeeping();
      await queue.scheduleHousekeeping();
      const schedulers = (await jobs.getJobSchedulers()).sort((a, b) => a.key.localeCompare(b.key));
      expect(schedulers).toHaveLength(2);
      expect(schedulers[0]).toMatchObject({ key: 'history-cleanup', name: JobName.HistoryCleanup, every: HISTORY_CLEANUP_EVERY_MS });
      expect(schedulers[1]).toMatchObject({ key: 'housekeeping', name: JobName.Housekeeping, every: HOUSEKEEPING_EVERY_MS });
      expect(HISTORY_CLEANUP_EVERY_MS).toBe(86_400_000);
      expect(await runs.getJobSchedulers()).toEqual([]);
    } finally {
      await jobs.obliterate({ force: true });
      await runs.obliterate({ force: true });
      await jobs.close();
      await runs.close();
    }
  });

  it('enqueue the same work twice as one job (deterministic ids on a real Redis)', async () => {
    const prefix = `meridian-test-${randomBytes(6).toString('hex')}`;
    const queue = new Queue('jobs', {
      prefix,
      connection: redisConnection(process.env.MERIDIAN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'),
    });
    try {
      const def = JOB_DEFINITIONS[JobName.Noop];
      const payload = { probeId: randomUUID() };
      const a = await queue.add(JobName.Noop, payload, { ...def.options, jobId: def.jobId(payload) });
      const b = await queue.add(JobName.Noop, payload, { ...def.options, jobId: def.jobId(payload) });
      expect(a.id).toBe(b.id);
      expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
