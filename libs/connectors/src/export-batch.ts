import type { Connector, ConnectorContext, ExportChange, ExportResult } from './connector.contract';

/** Exports one batch in a session of its own: open, write, commit; aborts when any step fails. */
export async function exportBatch(connector: Connector, ctx: ConnectorContext, batch: ExportChange[]): Promise<ExportResult[]> {
  const session = await connector.openExport(ctx);
  try {
    const results = await session.write(batch);
    await session.commit();
    return results;
  } catch (error) {
    // The original error is the one worth reporting; abort is clean-up.
    await session.abort().catch(() => undefined);
    throw error;
  }
}
