export { FileConnector } from './file.connector';
export { FILE_CONNECTOR_SETTINGS, parseFileSettings } from './file-settings';
export type { FileSettings, FileEncoding, FileMode } from './file-settings';
export { resolveConnectorFilePath } from './file-path';
export { FILE_IMPORT_ERROR_TYPES } from './file-import';
