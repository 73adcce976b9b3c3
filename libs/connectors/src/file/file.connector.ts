import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { DomainError } from '@meridian/domain';
import type {
  Connector,
  ConnectorCapabilities,
  ConnectorContext,
  DiscoveredSchema,
  ExportSession,
  ImportRequest,
  ImportSession,
  TestConnectionResult,
} from '../connector.contract';
import { openCsv } from './csv-reader';
import { openFileExport } from './file-export';
import { importFilePages } from './file-import';
import { resolveConnectorFilePath } from './file-path';
import { checkHeader, discoverFileSchema } from './file-schema';
import { FILE_CONNECTOR_SETTINGS, FileSettings, parseFileSettings } from './file-settings';

const CAPABILITIES: ConnectorCapabilities = Object.freeze({
  fullImport: true,
  deltaImport: false,
  export: true,
  schemaDiscovery: true,
  paging: true,
  autoConfirmExport: true,
});

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

function explain(error: unknown): string {
  if (error instanceof DomainError) {
    const fields = Object.values(error.validationErrors ?? {}).flat();
    return fields.length > 0 ? fields.join(' ') : error.message;
  }
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'Permission denied.';
  return error instanceof Error ? error.message : String(error);
}

/**
 * The File (CSV) connector: one CSV file under the connector-files root, read by streaming full
 * imports and rewritten atomically by exports. Stateless; everything comes from the context.
 */
export class FileConnector implements Connector {
  readonly type = 'File';
  readonly displayName = 'File (CSV)';
  readonly description =
    'Reads and writes a delimited text (CSV) file under the connector-files root: streaming full import, ' +
    'schema discovery with type inference, and exports that rewrite the file atomically once per run and confirm themselves.';
  readonly capabilities = CAPABILITIES;
  readonly settings = FILE_CONNECTOR_SETTINGS;

  effectiveCapabilities(settings: ConnectorContext['settings']): ConnectorCapabilities {
    const modeValue = Object.entries(settings).find(([k]) => k.toLowerCase() === 'mode')?.[1];
    const mode = typeof modeValue === 'string' ? modeValue.toLowerCase() : 'import';
    return {
      ...CAPABILITIES,
      fullImport: mode !== 'export',
      schemaDiscovery: true,
      export: mode === 'export' || mode === 'bidirectional',
    };
  }

  async testConnection(ctx: ConnectorContext): Promise<TestConnectionResult> {
    let settings: FileSettings;
    let filePath: string;
    try {
      settings = parseFileSettings(ctx.settings);
      filePath = await this.resolvePath(ctx, settings);
    } catch (error) {
      return { success: false, message: explain(error) };
    }
    const details: Record<string, unknown> = { filePath: settings.filePath, mode: settings.mode };
    const reads = settings.mode !== 'Export';
    const writes = settings.mode !== 'Import';
    try {
      let stat: Awaited<ReturnType<typeof fsp.stat>> | null = null;
      try {
        stat = await fsp.stat(filePath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      if (stat && !stat.isFile()) return { success: false, message: `"${settings.filePath}" is not a file.`, details };
      if (!stat && reads)
        return { success: false, message: `File "${settings.filePath}" does not exist under the connector-files root.`, details };
      if (writes) {
        try {
          await fsp.access(path.dirname(filePath), fsConstants.W_OK);
        } catch {
          return {
            success: false,
            message: `The directory of "${settings.filePath}" is not writable, so exports cannot replace the file.`,
            details,
          };
        }
      }
      if (!stat) {
        return {
          success: true,
          message: `File "${settings.filePath}" does not exist yet; its directory is writable, so the first export will create it.`,
          details: { ...details, exists: false },
        };
      }
      await fsp.access(filePath, fsConstants.R_OK);
      const doc = await openCsv(filePath, { delimiter: settings.delimiter, quote: settings.quote, encoding: settings.nodeEncoding });
      if (!doc) {
        const ok = !reads;
        return {
          success: ok,
          message: `File "${settings.filePath}" (${formatSize(stat.size)}) is empty${ok ? '; the first export will write a header' : ': a header row is needed'}.`,
          details: { ...details, exists: true, size: stat.size },
        };
      }
      await doc.batches.return(undefined);
      const header = checkHeader(doc.header, settings);
      const shown = header.columns.length > 20 ? `${header.columns.slice(0, 20).join(', ')}, …` : header.columns.join(', ');
      return {
        success: true,
        message:
          `Found "${settings.filePath}" (${formatSize(stat.size)}) with ${header.columns.length} column(s): ${shown}.` +
          (writes ? ' The directory is writable.' : ''),
        details: { ...details, exists: true, size: stat.size, columns: header.columns },
      };
    } catch (error) {
      return { success: false, message: `Cannot read "${settings.filePath}": ${explain(error)}`, details };
    }
  }

  async discoverSchema(ctx: ConnectorContext): Promise<DiscoveredSchema> {
    const settings = parseFileSettings(ctx.settings);
    const filePath = await this.resolvePath(ctx, settings);
    try {
      await fsp.access(filePath, fsConstants.R_OK);
    } catch {
      throw DomainError.validation(
        'settings.filePath',
        `File "${settings.filePath}" does not exist under the connector-files root or cannot be read.`,
      );
    }
    return discoverFileSchema(filePath, settings);
  }

  import(ctx: ConnectorContext, request: ImportRequest): ImportSession {
    if (request.mode !== 'Full') throw DomainError.badRequest('The File (CSV) connector does not support delta import; run a full import.');
    if (!Number.isSafeInteger(request.pageSize) || request.pageSize < 1)
      throw DomainError.validation('pageSize', 'Page size must be a positive whole number.');
    const settings = parseFileSettings(ctx.settings);
    if (settings.mode === 'Export')
      throw DomainError.badRequest(
        'This File (CSV) connected system is in Export mode and cannot import; set mode to Import or Bidirectional.',
      );
    return {
      pages: () => this.pages(ctx, settings, request.pageSize),
      watermark: () => null,
    };
  }

  async openExport(ctx: ConnectorContext): Promise<ExportSession> {
    const settings = parseFileSettings(ctx.settings);
    if (settings.mode === 'Import')
      throw DomainError.badRequest(
        'This File (CSV) connected system is in Import mode and cannot export; set mode to Export or Bidirectional.',
      );
    const filePath = await this.resolvePath(ctx, settings);
    return openFileExport(filePath, { ...settings, filePath: ctx.filePathOverride || settings.filePath }, ctx);
  }

  private async *pages(ctx: ConnectorContext, configured: FileSettings, pageSize: number) {
    const filePath = await this.resolvePath(ctx, configured);
    const settings = { ...configured, filePath: ctx.filePathOverride || configured.filePath };
    try {
      await fsp.access(filePath, fsConstants.R_OK);
    } catch {
      throw DomainError.badRequest(`File "${settings.filePath}" does not exist under the connector-files root or cannot be read.`);
    }
    yield* importFilePages(filePath, settings, ctx, pageSize);
  }

  /** The real path of the file: the run profile's override when given, else the setting; confined to the root. */
  private resolvePath(ctx: ConnectorContext, settings: FileSettings): Promise<string> {
    if (ctx.filePathOverride) return resolveConnectorFilePath(ctx.filesRoot, ctx.filePathOverride, 'filePathOverride');
    return resolveConnectorFilePath(ctx.filesRoot, settings.filePath, 'settings.filePath');
  }
}
