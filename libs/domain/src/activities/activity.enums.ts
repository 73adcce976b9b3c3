/** Activity status (spec 3.1). `Cancelled` is final: nothing later overwrites it. */
export enum ActivityStatus {
  InProgress = 'InProgress',
  Complete = 'Complete',
  CompleteWithWarning = 'CompleteWithWarning',
  CompleteWithError = 'CompleteWithError',
  FailedWithError = 'FailedWithError',
  Cancelled = 'Cancelled',
}

export const TERMINAL_ACTIVITY_STATUSES: readonly ActivityStatus[] = [
  ActivityStatus.Complete,
  ActivityStatus.CompleteWithWarning,
  ActivityStatus.CompleteWithError,
  ActivityStatus.FailedWithError,
  ActivityStatus.Cancelled,
];

/** What an activity acted on (spec 2.4), extended with the configuration resources Meridian records. */
export enum ActivityTargetType {
  ConnectedSystemRunProfile = 'ConnectedSystemRunProfile',
  ConnectedSystem = 'ConnectedSystem',
  SyncRule = 'SyncRule',
  MetaverseObject = 'MetaverseObject',
  MetaverseAttribute = 'MetaverseAttribute',
  MetaverseObjectType = 'MetaverseObjectType',
  TrustedCertificate = 'TrustedCertificate',
  ExampleDataTemplate = 'ExampleDataTemplate',
  ObjectMatchingRule = 'ObjectMatchingRule',
  ServiceSetting = 'ServiceSetting',
  HistoryRetentionCleanup = 'HistoryRetentionCleanup',
  ApiKey = 'ApiKey',
  Role = 'Role',
  Schedule = 'Schedule',
  ScheduleExecution = 'ScheduleExecution',
}

export enum ActivityOperationType {
  Create = 'Create',
  Update = 'Update',
  Delete = 'Delete',
  Revert = 'Revert',
  Execute = 'Execute',
  ImportSchema = 'ImportSchema',
  Cancel = 'Cancel',
}

/** Who started an activity (spec 2.4). `System` covers scheduled and internal work. */
export enum InitiatedByType {
  User = 'User',
  ApiKey = 'ApiKey',
  System = 'System',
}
