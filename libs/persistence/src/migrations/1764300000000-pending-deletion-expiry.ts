import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The housekeeping job's read of expired pending deletions (oldest eligible date first, a batch at a time)
 * walks a partial index in eligible-date order and stops after the batch. Without it, the read was planned
 * on the whole metaverse whenever the statistics predated the objects (a synchronisation filling the
 * metaverse): a sequential scan of every object every housekeeping interval, while the run wrote.
 */
export class PendingDeletionExpiry1764300000000 implements MigrationInterface {
  name = 'PendingDeletionExpiry1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_metaverse_object_deletion_eligible ON metaverse_object (deletion_eligible_date)
        WHERE last_connector_disconnected_date IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ix_metaverse_object_deletion_eligible`);
  }
}
