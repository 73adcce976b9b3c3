import type { EntityManager } from 'typeorm';

/**
 * Plain SQL on a TypeORM manager (the data source's, or a transaction's): rows and affected counts
 * alike for every statement kind (TypeORM answers `UPDATE … RETURNING` as [rows, count] otherwise).
 */
export abstract class ManagerStatements {
  constructor(protected readonly m: EntityManager) {}

  protected async run<T>(sql: string, params: readonly unknown[] = []): Promise<{ rows: T[]; count: number }> {
    const runner = this.m.queryRunner ?? this.m.connection.createQueryRunner();
    try {
      const result = await runner.query(sql, params as unknown[], true);
      const rows = (result.records ?? []) as T[];
      return { rows, count: result.affected ?? rows.length };
    } finally {
      if (!this.m.queryRunner) await runner.release();
    }
  }

  protected async rows<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.run<T>(sql, params)).rows;
  }

  protected async row<T>(sql: string, params: readonly unknown[] = []): Promise<T | null> {
    return (await this.rows<T>(sql, params))[0] ?? null;
  }

  protected async count(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.run(sql, params)).count;
  }
}
