/**
 * The connector contract: what every connector (file, LDAP, SQL, SCIM) implements so that import,
 * export, schema discovery and connection testing work the same way for all of them.
 */

/** Type of a connector setting, as shown to administrators and validated on save. */
export type ConnectorSettingType = 'String' | 'Text' | 'Integer' | 'Boolean' | 'Enum' | 'Password' | 'FilePath';

export interface ConnectorSettingDefinition {
  name: string;
  displayName: string;
  description: string;
  type: ConnectorSettingType;
  required: boolean;
  /** Secret settings are encrypted at rest and never returned by the API. */
  secret: boolean;
  defaultValue?: string | number | boolean | null;
  allowedValues?: readonly string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

export interface ConnectorCapabilities {
  fullImport: boolean;
  deltaImport: boolean;
  export: boolean;
  schemaDiscovery: boolean;
  paging: boolean;
  /** The connector confirms its own writes, so pending exports need no confirming import. */
  autoConfirmExport: boolean;
}

export type ConnectorAttributeType = 'String' | 'Integer' | 'Boolean' | 'DateTime' | 'Guid' | 'Reference' | 'Binary' | 'Decimal';

export interface DiscoveredAttribute {
  name: string;
  type: ConnectorAttributeType;
  plurality: 'Single' | 'Multi';
  writability: 'ReadOnly' | 'ReadWrite';
  description?: string | null;
  className?: string | null;
  /** The connector suggests this attribute as the external ID (e.g. the first column, entryUUID). */
  suggestedExternalId?: boolean;
  suggestedSecondaryExternalId?: boolean;
}

export interface DiscoveredObjectType {
  name: string;
  attributes: DiscoveredAttribute[];
}

export interface DiscoveredSchema {
  objectTypes: DiscoveredObjectType[];
}

/** Settings values by name (secrets decrypted), plus where file paths may point. */
export interface ConnectorContext {
  settings: Record<string, string | number | boolean | null>;
  /** Root directory file-based connectors are confined to. */
  filesRoot: string;
  /** PEM bundle of enabled trusted certificates (LDAPS/HTTPS connectors). */
  trustedCertificates?: string[];
  /** Run-profile override of the file path, if any. */
  filePathOverride?: string | null;
  /** Schema selected for synchronisation: object types and attributes by name, with external IDs. */
  schema?: SelectedSchema;
  signal?: AbortSignal;
}

export interface SelectedSchema {
  objectTypes: Array<{
    name: string;
    externalIdAttribute: string | null;
    secondaryExternalIdAttribute: string | null;
    attributes: Array<{ name: string; type: ConnectorAttributeType; plurality: 'Single' | 'Multi' }>;
  }>;
}

export type AttributeValue = string | number | boolean | null;

/** One object read from a connected system (values raw as the system gives them). */
export interface ImportedObject {
  objectType: string;
  /** Values by attribute name; multi-valued attributes are arrays. */
  attributes: Record<string, AttributeValue | AttributeValue[]>;
  /** Delta imports: the change kind. Full imports: always 'Upsert'. */
  change: 'Upsert' | 'Delete';
  /** Where the object came from, for error messages (e.g. "line 17"). */
  source?: string;
  /**
   * Optional: the object's source data as the connector read it, as text that is equal in two imports
   * exactly when the connector returns the same object from it (e.g. a file's header and the row's raw
   * fields). The engine hashes it together with the selected schema and the system's settings; when the
   * hash equals the one stored with the object, the object is unchanged and its values are not converted
   * or compared at all. A connector whose values depend on anything else (state outside the settings)
   * includes that in the text, or leaves the fingerprint out.
   */
  fingerprint?: string;
}

/** A problem with one object that does not stop the import. */
export interface ImportObjectError {
  source: string;
  message: string;
  errorType: string;
  externalId?: string | null;
}

export interface ImportPage {
  objects: ImportedObject[];
  errors: ImportObjectError[];
}

export interface ImportRequest {
  mode: 'Full' | 'Delta';
  /** Watermark saved by the last completed import (delta only). */
  watermark?: string | null;
  pageSize: number;
}

/** A paged import: iterate pages; the final watermark is available once iteration is complete. */
export interface ImportSession {
  pages(): AsyncIterable<ImportPage>;
  /** The watermark to save when (and only when) the whole import completed. */
  watermark(): string | null;
}

export interface ExportChange {
  /** Pending export id, to correlate results. */
  id: string;
  objectType: string;
  changeType: 'Create' | 'Update' | 'Delete';
  externalId: string | null;
  /** Attribute changes; for Create the full set. `RemoveAll` clears an attribute. */
  attributes: Array<{ name: string; operation: 'Add' | 'Replace' | 'Remove' | 'RemoveAll'; values: AttributeValue[] }>;
}

export interface ExportResult {
  id: string;
  success: boolean;
  /** External ID assigned by the system on Create (for a file: the value written to the external ID column). */
  externalId?: string | null;
  error?: string | null;
  /** True when the system confirmed the write (no confirming import needed). */
  confirmed?: boolean;
}

/** One export run: open → write batches → commit (or abort). Results per change come back from write(). */
export interface ExportSession {
  /** Applies (or stages) one batch; one result per change. A result with success=false fails only that change. */
  write(batch: ExportChange[]): Promise<ExportResult[]>;
  /** Makes every successful write durable (the File connector renames its temporary file over the target here). */
  commit(): Promise<void>;
  /** Discards what was staged; safe to call after a failed commit or twice. */
  abort(): Promise<void>;
}

export interface TestConnectionResult {
  success: boolean;
  message: string;
  details?: Record<string, unknown>;
}

/** A connector implementation. Instances are stateless; every call gets its context. */
export interface Connector {
  readonly type: string;
  readonly displayName: string;
  readonly description: string;
  readonly capabilities: ConnectorCapabilities;
  readonly settings: readonly ConnectorSettingDefinition[];
  /**
   * What this connector can do with these settings (e.g. a file connector in Import mode cannot export).
   * Defaults to `capabilities` when absent.
   */
  effectiveCapabilities?(settings: ConnectorContext['settings']): ConnectorCapabilities;
  /** Checks that the system can be reached with these settings. */
  testConnection(ctx: ConnectorContext): Promise<TestConnectionResult>;
  /** Reads the object types and attributes the system holds. */
  discoverSchema(ctx: ConnectorContext): Promise<DiscoveredSchema>;
  /** Starts a paged import. */
  import(ctx: ConnectorContext, request: ImportRequest): ImportSession;
  /** Starts an export run; the caller must end it with commit() or abort(). */
  openExport(ctx: ConnectorContext): Promise<ExportSession>;
}
