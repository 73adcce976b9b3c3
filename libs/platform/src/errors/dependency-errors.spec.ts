import { Dependency, DependencyUnavailableError, DomainError, ErrorCode } from '@meridian/domain';
import { createServer } from 'node:net';
import { Client } from 'pg';
import { asDependencyUnavailable, classifyDependencyError, dependencyUnavailableMessage, failureSummary } from './dependency-errors';

const POSTGRES_URL = process.env.MERIDIAN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function error(message: string, props: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), props);
}

/** A port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('classifyDependencyError', () => {
  it.each([
    ['pg: connection refused', error('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }), Dependency.Database],
    ['pg: connection reset', error('read ECONNRESET', { code: 'ECONNRESET' }), Dependency.Database],
    ['pg: server went away', error('Connection terminated unexpectedly'), Dependency.Database],
    ['pg: connect timeout', error('Connection terminated due to connection timeout'), Dependency.Database],
    ['pg-pool: acquisition timeout', error('timeout exceeded when trying to connect'), Dependency.Database],
    ['pg: broken client', error('Client has encountered a connection error and is not queryable'), Dependency.Database],
    ['SQLSTATE 08006', error('connection failure', { code: '08006' }), Dependency.Database],
    ['SQLSTATE 57P01 admin shutdown', error('terminating connection due to administrator command', { code: '57P01' }), Dependency.Database],
    [
      'SQLSTATE 57P02 crash shutdown',
      error('terminating connection because of crash of another server process', { code: '57P02' }),
      Dependency.Database,
    ],
    ['SQLSTATE 57P03 cannot connect now', error('the database system is starting up', { code: '57P03' }), Dependency.Database],
    ['SQLSTATE 53300 too many connections', error('sorry, too many clients already', { code: '53300' }), Dependency.Database],
    [
      'TypeORM QueryFailedError wrapping a dropped connection',
      error('Connection terminated unexpectedly', { name: 'QueryFailedError', driverError: error('Connection terminated unexpectedly') }),
      Dependency.Database,
    ],
    [
      'TypeORM wrapping 57P01 by driverError only',
      error('query failed', { name: 'QueryFailedError', driverError: error('x', { code: '57P01' }) }),
      Dependency.Database,
    ],
    [
      'AggregateError of refused addresses',
      Object.assign(new AggregateError([error('connect ECONNREFUSED ::1:5432', { code: 'ECONNREFUSED' })], ''), { code: 'ECONNREFUSED' }),
      Dependency.Database,
    ],
    ['cause chain', error('could not load', { cause: error('Connection terminated unexpectedly') }), Dependency.Database],
    ['ioredis: connection closed', error('Connection is closed.'), Dependency.Queue],
    ['ioredis: offline queue disabled', error("Stream isn't writeable and enableOfflineQueue options is false"), Dependency.Queue],
    [
      'ioredis: max retries per request',
      error('Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.', {
        name: 'MaxRetriesPerRequestError',
      }),
      Dependency.Queue,
    ],
    ['BullMQ: ConnectionClosedError', error('Connection is closed.', { name: 'ConnectionClosedError' }), Dependency.Queue],
    [
      'a DependencyUnavailableError names its own',
      new DependencyUnavailableError(Dependency.IdentityProvider, 'down'),
      Dependency.IdentityProvider,
    ],
  ])('%s', (_label, e, expected) => {
    expect(classifyDependencyError(e)).toBe(expected);
  });

  it.each([
    ['a syntax error', error('syntax error at or near "SELEC"', { code: '42601' })],
    ['a unique violation', error('duplicate key value violates unique constraint', { code: '23505' })],
    ['a statement timeout', error('canceling statement due to statement timeout', { code: '57014' })],
    ['a missing table', error('relation "queue_probe" does not exist', { code: '42P01' })],
    ['a domain error', new DomainError(ErrorCode.Conflict, 'taken')],
    [
      "a domain error quoting a connected system's database",
      DomainError.badRequest('Schema discovery failed: terminating connection due to administrator command', { cause: { code: '57P01' } }),
    ],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'text'],
    ['nothing', undefined],
  ])('%s is not an outage', (_label, e) => {
    expect(classifyDependencyError(e)).toBeNull();
  });

  it('recognises what node-postgres really throws when nothing listens', async () => {
    const client = new Client({ host: '127.0.0.1', port: await closedPort(), user: 'postgres', connectionTimeoutMillis: 2000 });
    const failure = await client.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ code: 'ECONNREFUSED' });
    expect(classifyDependencyError(failure)).toBe(Dependency.Database);
  });

  it('recognises a connection PostgreSQL terminates (57P01), and not a statement it refuses', async () => {
    const victim = new Client({ connectionString: POSTGRES_URL });
    const admin = new Client({ connectionString: POSTGRES_URL });
    await victim.connect();
    await admin.connect();
    try {
      victim.on('error', () => undefined);
      const bad = await victim.query('SELEC 1').catch((e: unknown) => e);
      expect(classifyDependencyError(bad)).toBeNull();
      const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const running = victim.query('SELECT pg_sleep(5)').catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      const terminated = await running;
      expect(classifyDependencyError(terminated)).toBe(Dependency.Database);
      // The client is now broken: the next query fails the same way.
      expect(classifyDependencyError(await victim.query('SELECT 1').catch((e: unknown) => e))).toBe(Dependency.Database);
    } finally {
      await victim.end().catch(() => undefined);
      await admin.end();
    }
  });
});

describe('asDependencyUnavailable', () => {
  it('turns an outage into a 503 error naming the dependency, without the raw cause', () => {
    const outage = asDependencyUnavailable(error('connect ECONNREFUSED 10.0.0.5:5432', { code: 'ECONNREFUSED' }));
    expect(outage).toBeInstanceOf(DependencyUnavailableError);
    expect(outage).toMatchObject({ dependency: Dependency.Database, code: ErrorCode.ServiceUnavailable, retryAfterSeconds: 5 });
    expect(outage!.message).toBe('The database (PostgreSQL) is unavailable; try again later.');
    expect(outage!.message).not.toContain('10.0.0.5');
    expect(dependencyUnavailableMessage(Dependency.Queue)).toBe('The job queue (Redis) is unavailable; try again later.');
  });

  it('keeps a DependencyUnavailableError as it is and leaves other errors alone', () => {
    const own = new DependencyUnavailableError(Dependency.Queue, 'The job queue (Redis) is unavailable; the run was not started.', 7);
    expect(asDependencyUnavailable(own)).toBe(own);
    expect(asDependencyUnavailable(new Error('boom'))).toBeNull();
  });
});

describe('failureSummary', () => {
  it('gives the message, the code and the driver cause on one line', () => {
    expect(
      failureSummary(error('query failed', { code: '57P01', driverError: error('terminating connection due to administrator command') })),
    ).toBe('query failed (57P01): terminating connection due to administrator command');
    expect(failureSummary('text')).toBe('text');
  });
});
