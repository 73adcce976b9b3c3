// Generated from openapi.json by openapi-typescript (`npm run api-client`); do not edit by hand.
export interface paths {
  '/api/v1/activities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List activities */
    get: operations['ActivitiesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activities/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an activity */
    get: operations['ActivitiesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activities/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a run-profile activity
     * @description Only an InProgress activity with targetType ConnectedSystemRunProfile; anything else (a finished activity, another kind) gives 400 BAD_REQUEST. One that no worker has started yet is Cancelled at once ("Cancelled before it started."); a running one is asked to stop: it stays InProgress until its worker reaches the next page boundary and ends it Cancelled. Returns the activity as GET /activities/{id} does.
     */
    post: operations['ActivitiesController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activities/{id}/children': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the child activities of an activity */
    get: operations['ActivitiesController_children'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activities/{id}/items': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the execution items of an activity */
    get: operations['ActivitiesController_items'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activities/{id}/stats': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Execution statistics of a run-profile activity
     * @description Progress and counters, the pages, phases and throughput the runner reported, and the execution items aggregated by outcome and by error type. Only for activities with targetType ConnectedSystemRunProfile; otherwise 400 BAD_REQUEST.
     */
    get: operations['ActivitiesController_stats'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/apikeys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List API keys */
    get: operations['ApiKeysController_list'];
    put?: never;
    /** Create an API key */
    post: operations['ApiKeysController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/apikeys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an API key */
    get: operations['ApiKeysController_get'];
    /** Update an API key */
    put: operations['ApiKeysController_update'];
    post?: never;
    /** Delete an API key */
    delete: operations['ApiKeysController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/config': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get the sign-in configuration */
    get: operations['AuthController_authConfig'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/certificates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List trusted certificates
     * @description All trusted certificates, by name. A short configuration list: not paginated.
     */
    get: operations['CertificatesController_list'];
    put?: never;
    /**
     * Upload a trusted certificate
     * @description PEM text in certificate or base64 DER in certificateBase64 (exactly one). The certificate is parsed and stored as PEM; a private key in the upload is refused; a certificate already trusted (same SHA-256 thumbprint) is 409.
     */
    post: operations['CertificatesController_upload'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/certificates/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a trusted certificate */
    get: operations['CertificatesController_get'];
    put?: never;
    post?: never;
    /**
     * Delete a trusted certificate
     * @description Connectors stop trusting it from their next connection.
     */
    delete: operations['CertificatesController_remove'];
    options?: never;
    head?: never;
    /**
     * Update name, notes or enabled state (spec 4.11)
     * @description All fields optional; only those present change.
     */
    patch: operations['CertificatesController_update'];
    trace?: never;
  };
  '/api/v1/certificates/{id}/pem': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Download the certificate as PEM */
    get: operations['CertificatesController_pem'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Check that the service is up */
    get: operations['HealthController_health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/health/live': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Check that the process is alive */
    get: operations['HealthController_live'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/health/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Check that the service can take requests */
    get: operations['HealthController_ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/health/version': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get the product name and version */
    get: operations['HealthController_version'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/history/cleanup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Delete history older than the retention period
     * @description No body. Deletes connected system object and metaverse object change records and finished activities (with their execution items) older than History.RetentionPeriod, oldest first, in batches of at most History.CleanupBatchSize per record type. Records of runs still in progress, and activities of schedule executions still running, are kept. Concurrent cleanups run one after the other. The cleanup is recorded as an activity (targetType HistoryRetentionCleanup) naming the caller and the counts.
     */
    post: operations['HistoryCleanupController_cleanup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/history/connected-systems/{connectedSystemId}/count': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Count the change records of a connected system
     * @description Every connector space object change record of the system, whatever its type. Unknown system: 404.
     */
    get: operations['HistoryController_count'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/history/deleted-objects/cso': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List deleted connector space objects
     * @description Deleted change records of connector space objects, newest first (changeTime, then record id). Filters combine (AND); fromDate and toDate are inclusive. Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only.
     */
    get: operations['HistoryController_deletedConnectorSpaceObjects'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/history/deleted-objects/mvo': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List deleted metaverse objects
     * @description Deleted change records of metaverse objects, newest first (changeTime, then record id). Filters combine (AND); fromDate and toDate are inclusive. Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only.
     */
    get: operations['HistoryController_deletedMetaverseObjects'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/logs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the log entries of one day
     * @description Log entries of one UTC day, newest first, across the services and their rolled files.
     */
    get: operations['LogsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/logs/files': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List log files
     * @description Log files, newest day first.
     */
    get: operations['LogsController_files'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/logs/levels': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List log levels
     * @description Log levels in ascending severity, with their short forms.
     */
    get: operations['LogsController_levels'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/logs/services': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the services with logs
     * @description Services whose logs can be read.
     */
    get: operations['LogsController_services'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/attributes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List metaverse attributes */
    get: operations['MetaverseAttributesController_list'];
    put?: never;
    /** Create a metaverse attribute */
    post: operations['MetaverseAttributesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/attributes/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a metaverse attribute */
    get: operations['MetaverseAttributesController_get'];
    /** Update a metaverse attribute */
    put: operations['MetaverseAttributesController_update'];
    post?: never;
    /** Delete a metaverse attribute */
    delete: operations['MetaverseAttributesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/object-types': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List metaverse object types */
    get: operations['MetaverseObjectTypesController_list'];
    put?: never;
    /** Create a metaverse object type */
    post: operations['MetaverseObjectTypesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/object-types/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a metaverse object type */
    get: operations['MetaverseObjectTypesController_get'];
    /** Update a metaverse object type */
    put: operations['MetaverseObjectTypesController_update'];
    post?: never;
    /** Delete a metaverse object type */
    delete: operations['MetaverseObjectTypesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/objects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List metaverse objects */
    get: operations['MetaverseObjectsController_list'];
    put?: never;
    /** Create a metaverse object */
    post: operations['MetaverseObjectsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/objects/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a metaverse object */
    get: operations['MetaverseObjectsController_get'];
    /** Update a metaverse object */
    put: operations['MetaverseObjectsController_update'];
    post?: never;
    /** Delete a metaverse object */
    delete: operations['MetaverseObjectsController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/objects/{id}/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A metaverse object's history
     * @description Newest first (record id: UUID v7, time ordered). Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only. Attribute, system and run profile names are the current ones (null when gone). 404 only when the object does not exist and has no change record: a deleted object's history stays readable.
     */
    get: operations['ObjectHistoryController_metaverseObject'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/pending-deletions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List pending deletions
     * @description Paginated (pageSize default 25, max 100), ordered by metaverse object id.
     */
    get: operations['PendingDeletionsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/pending-deletions/count': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Count pending deletions
     * @description A bare integer.
     */
    get: operations['PendingDeletionsController_count'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metaverse/pending-deletions/summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Pending deletions by status
     * @description Deprovisioning: still joined to connector space objects; AwaitingGracePeriod: deletionEligibleDate is in the future; ReadyForDeletion: the rest.
     */
    get: operations['PendingDeletionsController_summary'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/roles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List roles */
    get: operations['RolesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/roles/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a role */
    get: operations['RolesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/roles/{id}/members': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the members of a role */
    get: operations['RolesController_members'];
    put?: never;
    /** Add a member to a role */
    post: operations['RolesController_add'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/roles/{id}/members/{metaverseObjectId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Remove a member from a role */
    delete: operations['RolesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedule-executions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List schedule executions
     * @description Paginated execution summaries (spec 2.1; pageSize default 20, max 100), newest first by default.
     */
    get: operations['ScheduleExecutionsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedule-executions/active': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Executions that are queued, running or paused
     * @description An array (not paginated) of Queued, InProgress and Paused executions, oldest first.
     */
    get: operations['ScheduleExecutionsController_active'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedule-executions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an execution with its steps */
    get: operations['ScheduleExecutionsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedule-executions/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel an execution
     * @description A Queued, InProgress or Paused execution becomes Cancelled at once (final; nothing overwrites it) and is returned. Steps not yet running are cancelled; run-profile activities are asked to cancel (cancelled outright if no worker has started them); the scheduler stops processes and SQL scripts it runs for the execution (SIGTERM to the process group, SIGKILL after a grace period). A finished execution gives 400 BAD_REQUEST. Records a ScheduleExecution Cancel activity.
     */
    post: operations['ScheduleExecutionsController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List schedules
     * @description Paginated (spec 2.1; pageSize default 25, max 100), ordered by name; each with its step count and latest execution.
     */
    get: operations['SchedulesController_list'];
    put?: never;
    /**
     * Create a schedule
     * @description Required: name, triggerType, and patternType for Cron schedules (plus the fields its pattern needs). isEnabled defaults to false. Returns 201 with the schedule and its steps; records a Schedule Create activity.
     */
    post: operations['SchedulesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedules/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a schedule with its steps */
    get: operations['SchedulesController_get'];
    /**
     * Update a schedule (partial)
     * @description Only the fields sent change; steps, when sent, replaces every step (ids sent back are kept). nextRunTime is recomputed when the trigger, pattern, time zone or isEnabled change; lastRunTime never changes here.
     */
    put: operations['SchedulesController_update'];
    post?: never;
    /**
     * Delete a schedule
     * @description Deletes its steps and finished executions. 409 while an execution is Queued, InProgress or Paused: cancel it first.
     */
    delete: operations['SchedulesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedules/{id}/disable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Disable a schedule
     * @description Clears nextRunTime; running executions go on. Disabling a disabled schedule changes nothing. Returns the schedule.
     */
    post: operations['SchedulesController_disable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedules/{id}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Enable a schedule
     * @description Computes nextRunTime (Cron schedules). Enabling an enabled schedule changes nothing. Returns the schedule.
     */
    post: operations['SchedulesController_enable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/schedules/{id}/run': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run a schedule now
     * @description Always starts one execution: whatever the trigger type (Manual or Cron), whether the schedule is enabled, and even while another execution of it is active. Returns 202 with the Queued execution (initiatedByType User or ApiKey); the scheduler runs it. In maintenance mode it waits as Paused.
     */
    post: operations['ScheduleRunController_run'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/service-settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List service settings */
    get: operations['ServiceSettingsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/service-settings/{key}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a service setting */
    get: operations['ServiceSettingsController_get'];
    /** Set a service setting */
    put: operations['ServiceSettingsController_set'];
    post?: never;
    /** Revert a service setting to its default */
    delete: operations['ServiceSettingsController_revert'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/attribute-priorities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the contributors of metaverse attributes in priority order
     * @description Import mappings grouped by metaverse object type × attribute, each group ordered by priority (1 = highest). Filter with metaverseObjectTypeId and metaverseAttributeId.
     */
    get: operations['AttributePrioritiesController_list'];
    /**
     * Set the priority order of the contributors of one metaverse attribute
     * @description mappingIds must list exactly the contributing import mappings; they are renumbered 1..n.
     */
    put: operations['AttributePrioritiesController_set'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List connected systems
     * @description Every connected system with its object type, connector space object and run profile counts.
     */
    get: operations['ConnectedSystemsController_list'];
    put?: never;
    /**
     * Create a connected system
     * @description Settings are validated against the connector's settings schema; secret settings are encrypted at rest.
     */
    post: operations['ConnectedSystemsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a connected system
     * @description Non-secret settings by name; of the secret settings only the names of those that are set (secretSettingsSet).
     */
    get: operations['ConnectedSystemsController_get'];
    /**
     * Update a connected system
     * @description Partial. connectorType cannot change. Omitted secrets are kept; a secret sent as null is cleared.
     */
    put: operations['ConnectedSystemsController_update'];
    post?: never;
    /**
     * Delete a connected system
     * @description Removes the system with its connector space objects, object types, attributes, run profiles and sync rules. Up to 1000 connector space objects: deleted at once (200, CompletedImmediately). More: a background job (202, QueuedAsBackgroundJob). While a run of the system is in progress: queued to start when it finishes (202, QueuedAfterSync). Asking again while queued answers 202 with the same activity.
     */
    delete: operations['ConnectedSystemsController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List connector space objects
     * @description Paginated (pageSize default 25, max 100), ordered by id. Filters combine (AND). Counting stops 1,000 matches past the start of the page (totalCountIsExact). Unknown system: 404.
     */
    get: operations['ConnectorSpaceController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space/{objectId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a connector space object
     * @description Its attribute values by name, resolved references, the joined metaverse object and its pending exports. 404 when the system or the object does not exist, or the object belongs to another system.
     */
    get: operations['ConnectorSpaceController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space/{objectId}/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A connector space object's history
     * @description Newest first (record id: UUID v7, time ordered). Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only. Attribute, system and run profile names are the current ones (null when gone). 404 only when the system has no such object and no change record of it: a deleted object's history stays readable.
     */
    get: operations['ObjectHistoryController_connectorSpaceObject'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/deletion-preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Preview a deletion
     * @description What DELETE would remove, and whether it would complete immediately or run in the background.
     */
    get: operations['ConnectedSystemsController_preview'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List object types with their attributes */
    get: operations['ConnectedSystemObjectTypesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Update an object type
     * @description selected and removeContributedAttributesOnObsoletion; marks the system for a full synchronisation.
     */
    put: operations['ConnectedSystemObjectTypesController_update'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}/attributes/bulk-update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Update several attributes
     * @description An empty dictionary, unknown attribute ids or invalid fields are a 400 VALIDATION_ERROR and change nothing. An attribute whose update breaks a rule (e.g. deselecting an external ID) is reported in errors and not changed; the others are applied.
     */
    post: operations['ConnectedSystemObjectTypesController_bulkUpdate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}/attributes/{attributeId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Update an attribute
     * @description Rule 1: isExternalId true clears it from every other attribute of the type (likewise isSecondaryExternalId). Rule 2: external ID and secondary external ID attributes are selected automatically and cannot be deselected (400 VALIDATION_ERROR on selected). An attribute cannot be both the external ID and the secondary external ID.
     */
    put: operations['ConnectedSystemObjectTypesController_updateAttribute'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/pending-exports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List pending exports
     * @description Staged changes of the system, paginated (pageSize default 25, max 100), ordered by id, with their attribute changes, retries and last error. Unknown system: 404.
     */
    get: operations['ConnectorSpaceController_listPendingExports'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/run-profiles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the run profiles of a connected system */
    get: operations['RunProfilesController_list'];
    put?: never;
    /**
     * Create a run profile
     * @description A run type the connector cannot do with the system's settings is refused (400 naming runType).
     */
    post: operations['RunProfilesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/run-profiles/{runProfileId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a run profile */
    get: operations['RunProfilesController_get'];
    /** Update a run profile (partial) */
    put: operations['RunProfilesController_update'];
    post?: never;
    /** Delete a run profile */
    delete: operations['RunProfilesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/run-profiles/{runProfileId}/execute': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Execute a run profile
     * @description Creates an InProgress activity and queues the run; poll the activity for progress and the result.
     */
    post: operations['RunProfilesController_execute'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/schema/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import the schema
     * @description Discovers object types and attributes through the connector and merges them: new ones arrive unselected (a connector-suggested external ID is designated when the type has none), existing ones keep their selections, vanished ones are kept and flagged presentInSchema false. A connector failure is 400 BAD_REQUEST with the message (details.activityId names the failed activity).
     */
    post: operations['ConnectedSystemsController_importSchema'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connected-systems/{connectedSystemId}/test-connection': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Test the connection
     * @description Asks the connector to reach the system with the stored settings. A connector problem is success false with its message, never an error status.
     */
    post: operations['ConnectedSystemsController_testConnection'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connectors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the available connectors
     * @description Every connector this server can use for connected systems, with its capabilities and settings schema.
     */
    get: operations['ConnectorsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/connectors/{type}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get one connector
     * @description The connector with this type name (matched ignoring case), with its capabilities and settings schema.
     */
    get: operations['ConnectorsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/expression-functions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the functions of the expression language */
    get: operations['ExpressionsController_functions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List sync rules
     * @description Paginated (spec 2.1), ordered by name; filter by connected system, direction or metaverse object type.
     */
    get: operations['SyncRulesController_list'];
    put?: never;
    /**
     * Create a sync rule
     * @description Flags the connected system for a full synchronisation and records a SyncRule Create activity.
     */
    post: operations['SyncRulesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a sync rule with its scoping criteria, mappings and matching rules */
    get: operations['SyncRulesController_get'];
    /**
     * Update a sync rule (partial)
     * @description direction and connectedSystemId are immutable: a different value is a 400.
     */
    put: operations['SyncRulesController_update'];
    post?: never;
    /** Delete a sync rule with its mappings and matching rules */
    delete: operations['SyncRulesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{id}/scoping-criteria': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get the scoping criteria of a sync rule */
    get: operations['SyncRulesController_getScoping'];
    /**
     * Replace the scoping criteria of a sync rule
     * @description An empty array puts every object in scope.
     */
    put: operations['SyncRulesController_setScoping'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{syncRuleId}/mappings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the attribute mappings of a sync rule */
    get: operations['SyncRuleMappingsController_list'];
    put?: never;
    /**
     * Create an attribute mapping
     * @description A missing target, an invalid expression (with its line and column in details) or an unknown attribute gives 400 VALIDATION_ERROR.
     */
    post: operations['SyncRuleMappingsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{syncRuleId}/mappings/{mappingId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an attribute mapping */
    get: operations['SyncRuleMappingsController_get'];
    /**
     * Update an attribute mapping (partial)
     * @description Sources, when given, replace every source.
     */
    put: operations['SyncRuleMappingsController_update'];
    post?: never;
    /** Delete an attribute mapping */
    delete: operations['SyncRuleMappingsController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{syncRuleId}/matching-rules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the matching rules of a sync rule in evaluation order
     * @description Export rules have none (empty list).
     */
    get: operations['MatchingRulesController_list'];
    put?: never;
    /**
     * Create a matching rule
     * @description Turns on the index of the metaverse attribute when it is off and backfills its lookup rows.
     */
    post: operations['MatchingRulesController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{syncRuleId}/matching-rules/order': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set the evaluation order of every matching rule of a sync rule */
    put: operations['MatchingRulesController_reorder'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/sync-rules/{syncRuleId}/matching-rules/{matchingRuleId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Update a matching rule (partial) */
    put: operations['MatchingRulesController_update'];
    post?: never;
    /** Delete a matching rule */
    delete: operations['MatchingRulesController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/synchronisation/test-expression': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Evaluate an expression against sample values
     * @description A compile error is a 400 VALIDATION_ERROR with the line and column in details (as when a mapping is saved); an evaluation error (e.g. division by zero) is a 200 whose `error` holds the message and position. Nothing is stored.
     */
    post: operations['ExpressionsController_test'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/system/queue-probes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a queue probe */
    post: operations['QueueProbesController_start'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/system/queue-probes/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a queue probe */
    get: operations['QueueProbesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/userinfo': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get the caller */
    get: operations['AuthController_userInfo'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    ActivityDetailDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      parentActivityId?: string | null;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      executed?: string | null;
      /** @enum {string} */
      status: 'InProgress' | 'Complete' | 'CompleteWithWarning' | 'CompleteWithError' | 'FailedWithError' | 'Cancelled';
      /** @example ServiceSetting */
      targetType: string;
      /** @example Update */
      targetOperationType: string;
      targetName?: string | null;
      targetContext?: string | null;
      message?: string | null;
      /** @enum {string} */
      initiatedByType: 'User' | 'ApiKey' | 'System';
      /** Format: uuid */
      initiatedById?: string | null;
      initiatedByName?: string | null;
      objectsToProcess: number;
      objectsProcessed: number;
      /** @example 00:00:12 */
      executionTime?: string | null;
      /** @example 00:00:13 */
      totalActivityTime?: string | null;
      connectedSystemRunType?: string | null;
      childActivityCount: number;
      totalAdded: number;
      totalUpdated: number;
      totalDeleted: number;
      totalErrors: number;
      totalProjected: number;
      totalJoined: number;
      totalAttributeFlows: number;
      totalDisconnected: number;
      totalProvisioned: number;
      totalExported: number;
      totalDeprovisioned: number;
      totalPendingExports: number;
      warningMessage?: string | null;
      errorMessage?: string | null;
      errorStackTrace?: string | null;
      connectedSystemId?: number | null;
      connectedSystemRunProfileId?: number | null;
      syncRuleId?: number | null;
      /** Format: uuid */
      metaverseObjectId?: string | null;
      /** @description Id of the resource acted on. */
      targetId?: string | null;
      /** @description What a configuration change did. */
      details?: {
        [key: string]: unknown;
      } | null;
      executionStats?: {
        [key: string]: unknown;
      } | null;
    };
    ActivityRunPhaseDto: {
      /** @example Import */
      name: string;
      /** @example 12.4 */
      seconds: number;
    };
    ActivityRunStatsDto: {
      /** Format: uuid */
      activityId: string;
      /**
       * @description connectedSystemRunType of the activity.
       * @example FullImport
       */
      runType?: string | null;
      /** @enum {string} */
      status: 'InProgress' | 'Complete' | 'CompleteWithWarning' | 'CompleteWithError' | 'FailedWithError' | 'Cancelled';
      objectsToProcess: number;
      objectsProcessed: number;
      /** @description Pages processed, as the runner reported it (null until it does). */
      pages?: number | null;
      /** @description Throughput reported by the runner (null until it does). */
      objectsPerSecond?: number | null;
      /** @description Time spent per phase, in the order the runner reported them (empty until it does). */
      phases: components['schemas']['ActivityRunPhaseDto'][];
      /**
       * @description Sum of the Outcome:count pairs of every execution item by outcome (for AttributeFlow the count is attributes, not objects).
       * @example {
       *       "Projected": 120,
       *       "AttributeFlow": 1440
       *     }
       */
      outcomes: {
        [key: string]: number;
      };
      /**
       * @description Execution items by errorType.
       * @example {
       *       "DuplicateObject": 2
       *     }
       */
      errors: {
        [key: string]: number;
      };
      totals: components['schemas']['ActivityRunTotalsDto'];
    };
    ActivityRunTotalsDto: {
      totalAdded: number;
      totalUpdated: number;
      totalDeleted: number;
      totalProjected: number;
      totalJoined: number;
      totalAttributeFlows: number;
      totalDisconnected: number;
      totalProvisioned: number;
      totalExported: number;
      totalDeprovisioned: number;
      totalPendingExports: number;
      totalErrors: number;
    };
    ActivitySummaryDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      parentActivityId?: string | null;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      executed?: string | null;
      /** @enum {string} */
      status: 'InProgress' | 'Complete' | 'CompleteWithWarning' | 'CompleteWithError' | 'FailedWithError' | 'Cancelled';
      /** @example ServiceSetting */
      targetType: string;
      /** @example Update */
      targetOperationType: string;
      targetName?: string | null;
      targetContext?: string | null;
      message?: string | null;
      /** @enum {string} */
      initiatedByType: 'User' | 'ApiKey' | 'System';
      /** Format: uuid */
      initiatedById?: string | null;
      initiatedByName?: string | null;
      objectsToProcess: number;
      objectsProcessed: number;
      /** @example 00:00:12 */
      executionTime?: string | null;
      /** @example 00:00:13 */
      totalActivityTime?: string | null;
      connectedSystemRunType?: string | null;
      childActivityCount: number;
      totalAdded: number;
      totalUpdated: number;
      totalDeleted: number;
      totalErrors: number;
    };
    AddRoleMemberDto: {
      /**
       * Format: uuid
       * @description A metaverse User.
       */
      metaverseObjectId: string;
    };
    ApiKeyDto: {
      /** Format: uuid */
      id: string;
      name: string;
      description?: string | null;
      /**
       * @description The first characters of the secret, to tell keys apart.
       * @example mer_a1B2c3D4
       */
      keyPrefix: string;
      roles: string[];
      /** Format: date-time */
      expiresAt?: string | null;
      isExpired: boolean;
      isEnabled: boolean;
      /** @description Managed by MERIDIAN_BOOTSTRAP_API_KEY. */
      isBootstrap: boolean;
      /** Format: date-time */
      created: string;
      createdByName?: string | null;
      /** Format: date-time */
      lastUpdated?: string | null;
      /** Format: date-time */
      lastUsedAt?: string | null;
    };
    AttributeChangeDto: {
      attributeId: number;
      /** @description The attribute's current name; null when it is gone from the schema. */
      attributeName: string | null;
      /** @description Before the change (empty when added). Values as stored: text, numbers, booleans, date-time text, GUIDs (references: the referenced object id). */
      oldValues: unknown[];
      /** @description After the change (empty when removed). Values as stored: text, numbers, booleans, date-time text, GUIDs (references: the referenced object id). */
      newValues: unknown[];
    };
    AttributePriorityDto: {
      metaverseObjectTypeId: number;
      metaverseObjectTypeName: string;
      metaverseAttributeId: number;
      metaverseAttributeName: string;
      mappingId: number;
      syncRuleId: number;
      syncRuleName: string;
      syncRuleEnabled: boolean;
      mappingEnabled: boolean;
      connectedSystemId: number;
      connectedSystemName: string;
      /** @description 1 = highest. */
      priority: number;
      /** @description An empty value from this contributor still wins. */
      nullIsValue: boolean;
    };
    AuthConfigDto: {
      /** @example https://login.example.org/realms/meridian */
      authority: string;
      clientId: string;
      /**
       * @example [
       *       "openid",
       *       "profile"
       *     ]
       */
      scopes: string[];
      /** @example code */
      responseType: string;
      /** @example true */
      usePkce: boolean;
      /** @example S256 */
      codeChallengeMethod: string;
      /**
       * @description The audience access tokens must carry (the first value of OIDC_AUDIENCE; the client id unless a distinct API audience is configured).
       * @example api://meridian
       */
      audience: string;
      /**
       * @description The resource indicator (RFC 8707) to send with the authorisation and token requests, when the audience is distinct from the client id; null otherwise.
       * @example api://meridian
       */
      resource?: string | null;
    };
    BulkAttributeErrorDto: {
      attributeId: number;
      errorMessage: string;
    };
    BulkAttributeUpdateResultDto: {
      /** Format: uuid */
      activityId: string;
      updatedCount: number;
      /** @description Attributes updated by the request, plus attributes whose external ID flag rule 1 cleared. */
      updatedAttributes: components['schemas']['BulkUpdatedAttributeDto'][];
      /** @description Attributes whose update broke a rule (e.g. deselecting an external ID) and was not applied; null when none. */
      errors?: components['schemas']['BulkAttributeErrorDto'][] | null;
    };
    BulkUpdateAttributesDto: {
      /**
       * @description Attribute id → the fields of the single attribute update. Must not be empty; every id must be an attribute of the object type.
       * @example {
       *       "12": {
       *         "selected": true
       *       },
       *       "13": {
       *         "isExternalId": true
       *       }
       *     }
       */
      attributes: {
        [key: string]: components['schemas']['UpdateAttributeDto'];
      };
    };
    BulkUpdatedAttributeDto: {
      id: number;
      name: string;
      selected: boolean;
      isExternalId: boolean;
      isSecondaryExternalId: boolean;
      selectionLocked: boolean;
    };
    CertificateDto: {
      /** Format: uuid */
      id: string;
      name: string;
      notes?: string | null;
      /** @description Only enabled, unexpired certificates are trusted by connectors. */
      isEnabled: boolean;
      /**
       * @description SHA-256 of the DER encoding, upper-case hex without separators. Unique.
       * @example 6589C983142EEF8AFBF852B09F00B403E787505EF5E14B63EC81E0CB4F1DFBA5
       */
      thumbprint: string;
      /**
       * @description RFC 4514 string, most specific RDN first.
       * @example CN=Acme Root CA,O=Acme\, Ltd,C=GB
       */
      subject: string;
      /**
       * @description RFC 4514 string; equal to subject for a self-signed certificate.
       * @example CN=Acme Root CA,O=Acme\, Ltd,C=GB
       */
      issuer: string;
      /**
       * @description Upper-case hex.
       * @example 1EEA2209E34495FFFE530BA166CAE56787C39431
       */
      serialNumber: string;
      /** Format: date-time */
      notBefore: string;
      /** Format: date-time */
      notAfter: string;
      /** @description notAfter has passed. */
      isExpired: boolean;
      /** @description Not expired, and notAfter is within 30 days. */
      isExpiringSoon: boolean;
      /** @description The basic constraints extension says CA:TRUE. */
      isCertificateAuthority: boolean;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
    };
    ChangeRecordCountDto: {
      connectedSystemId: number;
      connectedSystemName: string;
      /** @description Change records of the connected system, whatever their type. */
      changeRecordCount: number;
    };
    ConnectedSystemDeletionPreviewDto: {
      connectedSystemId: number;
      connectedSystemName: string;
      connectedSystemObjectCount: number;
      objectTypeCount: number;
      attributeCount: number;
      runProfileCount: number;
      syncRuleCount: number;
      /** @description Metaverse objects joined to this system: they lose this connector. */
      joinedMetaverseObjectCount: number;
      /** @description Of those, objects with no connector left afterwards; their deletion rules apply at the next synchronisation. */
      metaverseObjectsLeftWithoutConnectorsCount: number;
      /** @description Metaverse object types whose deletion rule names this system as a trigger (the system is removed from them). */
      deletionRuleObjectTypes: string[];
      /** @description Run-profile activities of the system in progress; deletion waits for them. */
      activeRunActivityIds: string[];
      /**
       * @description Systems with at most this many connector space objects are deleted immediately.
       * @example 1000
       */
      immediateDeletionMaxObjects: number;
      /** @enum {string} */
      expectedOutcome: 'CompletedImmediately' | 'QueuedAsBackgroundJob' | 'QueuedAfterSync';
      runsInBackground: boolean;
      /**
       * Format: uuid
       * @description Set when a deletion is already queued.
       */
      deletionActivityId?: string | null;
    };
    ConnectedSystemDeletionResultDto: {
      /** @description The deletion was carried out or initiated. */
      success: boolean;
      /** @enum {string} */
      outcome: 'CompletedImmediately' | 'QueuedAsBackgroundJob' | 'QueuedAfterSync' | 'Failed';
      errorMessage?: string | null;
      /**
       * Format: uuid
       * @description When queued: the background task (the BullMQ job id is `delete-connected-system-<workerTaskId>`; it equals the activity id).
       */
      workerTaskId?: string | null;
      /** Format: uuid */
      activityId?: string | null;
    };
    ConnectedSystemDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @example File */
      connectorType: string;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      objectTypeCount: number;
      /** @description Connector space objects (CSOs) of the system. */
      objectCount: number;
      runProfileCount: number;
      /** @description Non-secret settings by name (defaults filled in). Secret settings never appear here. */
      settings: {
        [key: string]: unknown;
      };
      /**
       * @description Names of the secret settings that hold a value; the values are write-only.
       * @example [
       *       "password"
       *     ]
       */
      secretSettingsSet: string[];
      /** @enum {string} */
      unresolvedReferenceHandling: 'Error' | 'Warn' | 'Ignore';
      /** @description A configuration change means the next synchronisation must be a full one. */
      fullSyncRequired: boolean;
      /** Format: date-time */
      lastSchemaImport?: string | null;
      /** @description What the connector can do with these settings; null if the connector is not available. */
      capabilities?: components['schemas']['ConnectorCapabilitiesDto'] | (never | null);
      /**
       * Format: uuid
       * @description Set while the system is queued for deletion: the deletion activity. The system can then no longer be changed or run.
       */
      deletionActivityId?: string | null;
    };
    ConnectedSystemSummaryDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @example File */
      connectorType: string;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      objectTypeCount: number;
      /** @description Connector space objects (CSOs) of the system. */
      objectCount: number;
      runProfileCount: number;
    };
    ConnectorCapabilitiesDto: {
      /** @description Can read every object (full import). */
      fullImport: boolean;
      /** @description Can read only the changes since the last import (delta import, with a watermark). */
      deltaImport: boolean;
      /** @description Can write pending exports to the system. */
      export: boolean;
      /** @description Can discover the object types and attributes of the system (import schema). */
      schemaDiscovery: boolean;
      /** @description Imports in pages of the run profile's page size. */
      paging: boolean;
      /** @description Confirms its own writes, so exported changes need no confirming import. */
      autoConfirmExport: boolean;
    };
    ConnectorDto: {
      /**
       * @description The `connectorType` of connected systems using this connector.
       * @example File
       */
      type: string;
      /** @example File (CSV) */
      displayName: string;
      description: string;
      /** @description What the connector can do at most; a connected system's settings may narrow it (e.g. a file in Import mode cannot export). */
      capabilities: components['schemas']['ConnectorCapabilitiesDto'];
      /** @description The settings schema, in display order. */
      settings: components['schemas']['ConnectorSettingDto'][];
    };
    ConnectorSettingDto: {
      /**
       * @description Key of the setting in a connected system's `settings`.
       * @example filePath
       */
      name: string;
      /** @example File path */
      displayName: string;
      description: string;
      /**
       * @description FilePath: relative to the connector-files root.
       * @enum {string}
       */
      type: 'String' | 'Text' | 'Integer' | 'Boolean' | 'Enum' | 'Password' | 'FilePath';
      required: boolean;
      /** @description Secret settings are encrypted at rest and never returned. */
      secret: boolean;
      /**
       * @description Value used when the setting is not given; null when there is none.
       * @example ,
       */
      defaultValue?: (string | null) | number | boolean;
      /**
       * @description Allowed values of an Enum setting (matched ignoring case).
       * @example [
       *       "Import",
       *       "Export",
       *       "Bidirectional"
       *     ]
       */
      allowedValues?: string[] | null;
      /** @description Smallest allowed value of an Integer setting. */
      minimum?: number | null;
      /** @description Largest allowed value of an Integer setting. */
      maximum?: number | null;
      /** @description Longest allowed text. */
      maxLength?: number | null;
    };
    ConnectorSpaceAttributeValuesDto: {
      attributeId: number;
      /** @description null when the attribute is no longer in the schema. */
      attributeName?: string | null;
      /** @example String */
      attributeType?: string | null;
      /** @description The values as imported (references as the raw value, e.g. a DN). */
      values: unknown[];
    };
    ConnectorSpaceObjectChangeDto: {
      /**
       * Format: uuid
       * @description The activity that made the change.
       */
      activityId: string | null;
      runProfileId: number | null;
      /** @description The run profile's current name; null when it is gone. */
      runProfileName: string | null;
      /**
       * @description Who made the change.
       * @enum {string}
       */
      initiatedByType: 'User' | 'ApiKey' | 'System';
      /** @description The user, API key or "System". */
      initiatedByName: string | null;
      /**
       * Format: uuid
       * @description The change record (UUID v7: time ordered).
       */
      id: string;
      /** @enum {string} */
      changeType: 'Added' | 'Updated' | 'Obsoleted' | 'Deleted';
      /** Format: date-time */
      changeTime: string;
      /** @description Empty for Obsoleted and Deleted. */
      attributeChanges: components['schemas']['AttributeChangeDto'][];
      connectedSystemId: number;
      /** @description The system's current name (as recorded, once it is gone). */
      connectedSystemName: string | null;
      /** @description As the object had it at the change. */
      externalId: string | null;
      /** @description As the object had it at the change. */
      displayName: string | null;
    };
    ConnectorSpaceObjectChangePage: {
      items: components['schemas']['ConnectorSpaceObjectChangeDto'][];
      /** @description Records that match, on every page. */
      totalCount: number;
      page: number;
      pageSize: number;
    };
    ConnectorSpaceObjectDetailDto: {
      /** Format: uuid */
      id: string;
      /** @description null until a provisioned object is exported. */
      externalId?: string | null;
      secondaryExternalId?: string | null;
      displayName?: string | null;
      objectTypeId: number;
      objectTypeName: string;
      /** @enum {string} */
      status: 'Normal' | 'Obsolete' | 'PendingProvisioning';
      /** Format: uuid */
      metaverseObjectId?: string | null;
      /** @enum {string|null} */
      joinType?: 'Projected' | 'Joined' | 'Provisioned' | null;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      /** @description Pending exports of the object, whatever their status. */
      pendingExportCount: number;
      /** @description Changed since the last synchronisation processed it (picked up by the next delta synchronisation). */
      syncPending: boolean;
      /** @description By attribute name. */
      attributeValues: components['schemas']['ConnectorSpaceAttributeValuesDto'][];
      /** @description null until references have been resolved after an import. */
      resolvedReferences?: components['schemas']['ConnectorSpaceResolvedReferenceDto'][] | null;
      metaverseObject?: components['schemas']['JoinedMetaverseObjectDto'] | (never | null);
      /** @description Oldest first. */
      pendingExports: components['schemas']['PendingExportDto'][];
    };
    ConnectorSpaceObjectDto: {
      /** Format: uuid */
      id: string;
      /** @description null until a provisioned object is exported. */
      externalId?: string | null;
      secondaryExternalId?: string | null;
      displayName?: string | null;
      objectTypeId: number;
      objectTypeName: string;
      /** @enum {string} */
      status: 'Normal' | 'Obsolete' | 'PendingProvisioning';
      /** Format: uuid */
      metaverseObjectId?: string | null;
      /** @enum {string|null} */
      joinType?: 'Projected' | 'Joined' | 'Provisioned' | null;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      /** @description Pending exports of the object, whatever their status. */
      pendingExportCount: number;
    };
    ConnectorSpacePageDto: {
      items: components['schemas']['ConnectorSpaceObjectDto'][];
      /** @description Exact up to (page - 1) × pageSize + 1000 matching objects; beyond that, that bound (see totalCountIsExact). */
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      /** @description false when counting stopped at the bound: at least totalCount objects match. */
      totalCountIsExact: boolean;
    };
    ConnectorSpaceResolvedReferenceDto: {
      attributeId: number;
      attributeName?: string | null;
      /** @description Connector space objects the values resolved to (null: unresolved). */
      connectedSystemObjectIds: (string | null)[];
    };
    CreateApiKeyDto: {
      /** @example CI pipeline */
      name: string;
      description?: string | null;
      /**
       * @description Role names; a key without roles is authenticated but not an administrator.
       * @example [
       *       "Administrator"
       *     ]
       */
      roles?: string[];
      /**
       * Format: date-time
       * @description When the key stops working; null or absent: never.
       */
      expiresAt?: string | null;
      /** @default true */
      isEnabled?: boolean;
    };
    CreateConnectedSystemDto: {
      /**
       * @description Unique, ignoring case.
       * @example HR system
       */
      name: string;
      description?: string | null;
      /**
       * @description A connector type from GET /api/v1/synchronisation/connectors; cannot be changed later.
       * @example File
       */
      connectorType: string;
      /**
       * @description Connector settings by name (see GET /api/v1/synchronisation/connectors for each connector's schema), validated against the connector's settings schema; an invalid or unknown setting is a 400 VALIDATION_ERROR naming `settings.<name>`. Secret settings (e.g. passwords) are encrypted at rest and never returned.
       * @example {
       *       "filePath": "hr/people.csv",
       *       "delimiter": ",",
       *       "mode": "Import"
       *     }
       */
      settings?: {
        [key: string]: (string | null) | number | boolean;
      };
      /**
       * @description What an import does with a reference value it cannot resolve.
       * @default Warn
       * @enum {string}
       */
      unresolvedReferenceHandling?: 'Error' | 'Warn' | 'Ignore';
    };
    CreateMappingDto: {
      /** @description Required for Import rules: an attribute of the rule's metaverse object type. */
      targetMetaverseAttributeId?: number | null;
      /** @description Required for Export rules: a selected, writable attribute of the rule's connected system object type. */
      targetConnectedSystemAttributeId?: number | null;
      /** @description Import rules only: position among the contributors of the target metaverse attribute (1 = highest); default last. Past the end means last. */
      priority?: number;
      /**
       * @description Import rules only: an empty value from this mapping still wins (it asserts the attribute is empty).
       * @default false
       */
      nullIsValue?: boolean;
      /**
       * @description Export rules only: flow when the object is created (provisioned), never on updates.
       * @default false
       */
      initialExportOnly?: boolean;
      /** @default true */
      enabled?: boolean;
      /** @description At least one source. */
      sources: components['schemas']['MappingSourceInputDto'][];
    };
    CreateMatchingRuleDto: {
      /**
       * @description Compare respecting case (default: ignoring case).
       * @default false
       */
      caseSensitive?: boolean;
      /** @description 1-based position in evaluation order (1 = tried first); default last. Past the end means last. */
      order?: number;
      /**
       * @description Selected attributes of the rule's connected system object type; the values of all of them are candidates.
       * @example [
       *       41
       *     ]
       */
      connectedSystemAttributeIds: number[];
      /**
       * @description A String, Text, Guid, Integer or LongNumber attribute of the rule's metaverse object type; indexed automatically.
       * @example 8
       */
      metaverseAttributeId: number;
    };
    CreateMetaverseAttributeDto: {
      /**
       * @description Unique, compared ignoring case; no commas (names are listed comma-separated in attributes=).
       * @example Cost Centre
       */
      name: string;
      description?: string | null;
      /**
       * @description String and Text hold text, Binary base64 text, Reference the id of another metaverse object.
       * @enum {string}
       */
      type: 'String' | 'Text' | 'Integer' | 'LongNumber' | 'Decimal' | 'Boolean' | 'DateTime' | 'Guid' | 'Binary' | 'Reference';
      /**
       * @default Single
       * @enum {string}
       */
      plurality?: 'Single' | 'Multi';
      /**
       * @description The object types that get the attribute.
       * @example [
       *       1
       *     ]
       */
      objectTypeIds?: number[];
      /**
       * @description Keep values in the lookup table (String, Text, Guid, Integer and LongNumber only).
       * @default false
       */
      isIndexed?: boolean;
    };
    CreateMetaverseObjectDto: {
      /**
       * @description Object type name (ignoring case). Give objectType or objectTypeId (both: they must agree).
       * @example User
       */
      objectType?: string;
      /**
       * @description Object type id.
       * @example 1
       */
      objectTypeId?: number;
      /**
       * @description Attribute name → value (arrays for multi-valued attributes). Numbers and booleans as JSON, DateTime as ISO 8601, Reference as an object id.
       * @example {
       *       "Display Name": "Ada Lovelace",
       *       "Subject Identifier": "ada",
       *       "Emails": [
       *         "ada@example.org"
       *       ]
       *     }
       */
      attributes: {
        [key: string]: unknown;
      };
    };
    CreateMetaverseObjectTypeDto: {
      /**
       * @description Manual: never automatic. WhenLastConnectorDisconnected: when the last connector space object disconnects. WhenAuthoritativeSourceDisconnected: when the trigger systems disconnect (deletionTriggerMode). Internal objects are never deleted automatically.
       * @default WhenLastConnectorDisconnected
       * @enum {string}
       */
      deletionRule?: 'Manual' | 'WhenLastConnectorDisconnected' | 'WhenAuthoritativeSourceDisconnected';
      /**
       * @description How long an object stays a pending deletion before housekeeping deletes it: a timespan "d.hh:mm:ss" or "hh:mm:ss" in whole seconds, at most 3650 days. null, 0 or "00:00:00": no grace period (deleted within the synchronisation run).
       * @example 7.00:00:00
       */
      deletionGracePeriod?: string | null;
      /**
       * @description Connected systems whose disconnection deletes the object. Required (non-empty) with WhenAuthoritativeSourceDisconnected, refused with the other rules; changing the rule away from WhenAuthoritativeSourceDisconnected clears them.
       * @example [
       *       1
       *     ]
       */
      deletionTriggerConnectedSystemIds?: number[];
      /**
       * @description Any: one trigger system disconnecting is enough. All: every one must.
       * @default Any
       * @enum {string}
       */
      deletionTriggerMode?: 'Any' | 'All';
      /**
       * @description Unique, compared ignoring case; no commas.
       * @example Contractor
       */
      name: string;
      description?: string | null;
      /**
       * @description Existing attributes the type has (e.g. Display Name, so objects get a display name).
       * @example [
       *       4,
       *       6
       *     ]
       */
      attributeIds?: number[];
    };
    CreateRunProfileDto: {
      /**
       * @description Unique within the connected system, ignoring case.
       * @example Full import
       */
      name: string;
      /**
       * @description Run types the connector cannot do with the system's settings are refused (400 naming runType).
       * @enum {string}
       */
      runType: 'FullImport' | 'DeltaImport' | 'FullSynchronisation' | 'DeltaSynchronisation' | 'Export';
      /** @description Default: the Sync.PageSize service setting (1000 unless changed). */
      pageSize?: number;
      /**
       * @description Overrides the connector's file path for this run (connectors with a filePath setting, import and export run types only). Relative to the connector files root (MERIDIAN_CONNECTOR_FILES_ROOT); absolute paths and ".." are refused.
       * @example hr/people-delta.csv
       */
      filePath?: string | null;
    };
    CreateScheduleDto: {
      description?: string | null;
      /**
       * @description Required when triggerType is Cron.
       * @default SpecificTimes
       * @enum {string}
       */
      patternType?: 'SpecificTimes' | 'Interval' | 'Custom';
      /**
       * @description Comma-separated day numbers, 0 = Sunday to 6 = Saturday, no repeats (e.g. `1,2,3,4,5`). Required for SpecificTimes and Interval Cron schedules.
       * @example 1,2,3,4,5
       */
      daysOfWeek?: string | null;
      /**
       * @description SpecificTimes: comma-separated 24-hour times `HH:mm` (00:00-23:59), no repeats. Every time fires on every selected day.
       * @example 09:00,17:30
       */
      runTimes?: string | null;
      /** @description Interval: every N minutes or hours. */
      intervalValue?: number | null;
      /** @enum {string|null} */
      intervalUnit?: 'Minutes' | 'Hours' | null;
      /**
       * @description Interval: `HH:mm`, the first run of each selected day.
       * @example 08:00
       */
      intervalWindowStart?: string | null;
      /**
       * @description Interval: `HH:mm`, later than the start; a run falling exactly on it still happens (inclusive).
       * @example 18:00
       */
      intervalWindowEnd?: string | null;
      /**
       * @description Custom only (otherwise generated and read-only; a value sent with another pattern type is ignored): 5-field cron (minute hour day-of-month month day-of-week), several lines separated by `;`. No seconds, no nicknames.
       * @example 0 9 * * 1-5
       */
      cronExpression?: string | null;
      /**
       * @description IANA time zone the days and times are read in; null resets it to UTC.
       * @default UTC
       * @example Europe/London
       */
      timeZone?: string;
      /** @description Create default: false (a new schedule fires only once enabled). */
      isEnabled?: boolean;
      /** @description The full desired list of steps (at most 100); on update it replaces every existing step. Steps sent with the `id` of an existing step keep it (updated in place); steps without `id` are added; existing steps left out are deleted. Indices run from 0 without gaps; steps with the same index run in parallel. Errors name the step: `steps[1].runProfileId`. */
      steps?: components['schemas']['ScheduleStepInputDto'][];
      /**
       * @description Unique, ignoring case.
       * @example HR weekday sync
       */
      name: string;
      /**
       * @description Cron: fires by its pattern while enabled. Manual: runs only through POST /api/v1/schedules/{id}/run.
       * @enum {string}
       */
      triggerType: 'Cron' | 'Manual';
    };
    CreateSyncRuleDto: {
      description?: string | null;
      /**
       * @description Import rules only: create a metaverse object for an in-scope object that matches none.
       * @default false
       */
      projectToMetaverse?: boolean;
      /**
       * @description Export rules only: create the object in the connected system for an in-scope metaverse object that has none there.
       * @default false
       */
      provisionToConnectedSystem?: boolean;
      /** @default true */
      enabled?: boolean;
      /**
       * @description Import rules only: what happens to a joined object that leaves the scope.
       * @default Disconnect
       * @enum {string}
       */
      inboundOutOfScopeAction?: 'RemainJoined' | 'Disconnect';
      /**
       * @description Export rules only: what happens to a joined object whose metaverse object leaves the scope.
       * @default Disconnect
       * @enum {string}
       */
      outboundDeprovisionAction?: 'Disconnect' | 'Delete';
      /**
       * @description Top-level groups OR together; an empty array puts every object in scope. At most 5 levels, 50 groups and 200 criteria. Validated against the rule's attributes; errors name the path, e.g. scopingCriteria[0].criteria[1].operator.
       * @default []
       */
      scopingCriteria?: components['schemas']['ScopingGroupDto'][];
      /**
       * @description Unique (ignoring case) among sync rules.
       * @example HR users in
       */
      name: string;
      /** @description The connected system; immutable. */
      connectedSystemId: number;
      /**
       * @description Immutable.
       * @enum {string}
       */
      direction: 'Import' | 'Export';
      /** @description An object type of the connected system that is selected for synchronisation. */
      connectedSystemObjectTypeId: number;
      /** @description A metaverse object type, e.g. the built-in User. */
      metaverseObjectTypeId: number;
    };
    CreatedApiKeyDto: {
      /** Format: uuid */
      id: string;
      name: string;
      description?: string | null;
      /**
       * @description The first characters of the secret, to tell keys apart.
       * @example mer_a1B2c3D4
       */
      keyPrefix: string;
      roles: string[];
      /** Format: date-time */
      expiresAt?: string | null;
      isExpired: boolean;
      isEnabled: boolean;
      /** @description Managed by MERIDIAN_BOOTSTRAP_API_KEY. */
      isBootstrap: boolean;
      /** Format: date-time */
      created: string;
      createdByName?: string | null;
      /** Format: date-time */
      lastUpdated?: string | null;
      /** Format: date-time */
      lastUsedAt?: string | null;
      /**
       * @description The secret. Shown only in this response: store it now.
       * @example mer_…
       */
      key: string;
    };
    CsAttributeDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @description Connector-specific (e.g. the LDAP object class that defines it). */
      className?: string | null;
      /** Format: date-time */
      created: string;
      /**
       * @description Connector-owned (read-only).
       * @enum {string}
       */
      type: 'String' | 'Integer' | 'Boolean' | 'DateTime' | 'Guid' | 'Reference' | 'Binary' | 'Decimal';
      /**
       * @description Connector-owned (read-only).
       * @enum {string}
       */
      attributePlurality: 'Single' | 'Multi';
      /** @description Included in synchronisation. */
      selected: boolean;
      /** @description Primary external identifier for matching; one per object type. */
      isExternalId: boolean;
      /** @description Secondary external identifier (e.g. an LDAP DN); one per object type. */
      isSecondaryExternalId: boolean;
      /** @description True when the attribute is an external ID or secondary external ID and so cannot be deselected. */
      selectionLocked: boolean;
      /** @enum {string} */
      writability: 'ReadOnly' | 'ReadWrite';
      /** @description False when the last schema import no longer found the attribute (kept so its selection survives). */
      presentInSchema: boolean;
    };
    CsObjectTypeDto: {
      id: number;
      name: string;
      /** Format: date-time */
      created: string;
      selected: boolean;
      removeContributedAttributesOnObsoletion: boolean;
      /** @description False when the last schema import no longer found the object type. */
      presentInSchema: boolean;
      attributeCount: number;
      attributes: components['schemas']['CsAttributeDto'][];
    };
    DeletedCsoDto: {
      /**
       * Format: uuid
       * @description The deleted connector space object.
       */
      id: string;
      externalId: string | null;
      displayName: string | null;
      /** @description As recorded with the deletion, else the current name of the type (null when neither is known). */
      objectTypeName: string | null;
      connectedSystemId: number;
      /** @description As recorded with the deletion, else the current name of the system. */
      connectedSystemName: string | null;
      /** Format: date-time */
      changeTime: string;
      /**
       * @description Who made the change.
       * @enum {string}
       */
      initiatedByType: 'User' | 'ApiKey' | 'System';
      /** @description The user, API key or "System". */
      initiatedByName: string | null;
    };
    DeletedCsoPage: {
      items: components['schemas']['DeletedCsoDto'][];
      /** @description Records that match, on every page. */
      totalCount: number;
      page: number;
      pageSize: number;
    };
    DeletedMvoDto: {
      /**
       * Format: uuid
       * @description The deleted metaverse object.
       */
      id: string;
      displayName: string | null;
      /** @description As recorded with the deletion, else the current name of the type (null when neither is known). */
      objectTypeName: string | null;
      objectTypeId: number;
      /** Format: date-time */
      changeTime: string;
      /**
       * @description Who made the change.
       * @enum {string}
       */
      initiatedByType: 'User' | 'ApiKey' | 'System';
      /** @description The user, API key or "System". */
      initiatedByName: string | null;
    };
    DeletedMvoPage: {
      items: components['schemas']['DeletedMvoDto'][];
      /** @description Records that match, on every page. */
      totalCount: number;
      page: number;
      pageSize: number;
    };
    ErrorBodyDto: {
      /** @enum {string} */
      code:
        | 'VALIDATION_ERROR'
        | 'BAD_REQUEST'
        | 'UNAUTHORISED'
        | 'FORBIDDEN'
        | 'NOT_FOUND'
        | 'CONFLICT'
        | 'PAYLOAD_TOO_LARGE'
        | 'RATE_LIMITED'
        | 'SERVICE_UNAVAILABLE'
        | 'INTERNAL_ERROR';
      message: string;
      /** @description Extra information about the error: any JSON value, its shape depends on the code (e.g. the conflicting ids of a CONFLICT). */
      details?: unknown;
      /** @description Field name → messages. */
      validationErrors?: {
        [key: string]: string[];
      };
      /** @description Present on 5xx responses; the same id is in the web log. */
      errorId?: string;
      /** Format: date-time */
      timestamp: string;
      path: string;
    };
    ExecutionDetailDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      scheduleId: string;
      /** @description The schedule's name when the execution was created. */
      scheduleName: string;
      /** @enum {string} */
      status: 'Queued' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled' | 'Paused';
      /** @description The stepIndex running now (or the last one run). */
      currentStepIndex: number;
      /** @description Number of step indices (stages), not of steps. */
      totalSteps: number;
      /** Format: date-time */
      queuedAt: string;
      /** Format: date-time */
      startedAt?: string | null;
      /** Format: date-time */
      completedAt?: string | null;
      /**
       * @description NotSet: started by the cron trigger.
       * @enum {string}
       */
      initiatedByType: 'User' | 'ApiKey' | 'NotSet';
      /** Format: uuid */
      initiatedById?: string | null;
      initiatedByName?: string | null;
      /**
       * @description Why it failed; on a Completed execution, the continueOnFailure steps that failed.
       * @example Step 1 'HR import' failed: exit code 3
       */
      errorMessage?: string | null;
      /** @description Ordered by stepIndex; steps with the same index run in parallel. */
      steps: components['schemas']['ExecutionStepDto'][];
    };
    ExecutionItemDto: {
      /** Format: uuid */
      id: string;
      externalIdValue?: string | null;
      displayName?: string | null;
      connectedSystemObjectType?: string | null;
      /** @example Add */
      objectChangeType: string;
      /** @example DuplicateObject */
      errorType?: string | null;
      errorMessage?: string | null;
      /** @example Projected:1,AttributeFlow:12 */
      outcomeSummary?: string | null;
    };
    ExecutionStepDto: {
      stepIndex: number;
      name: string;
      /** @enum {string} */
      stepType: 'RunProfile' | 'PowerShell' | 'Executable' | 'SqlScript';
      /** @enum {string} */
      executionMode: 'Sequential' | 'ParallelWithPrevious';
      connectedSystemId?: number | null;
      /** @enum {string} */
      status:
        | 'Pending'
        | 'Queued'
        | 'Processing'
        | 'Waiting'
        | 'Completed'
        | 'Completed with Warning'
        | 'Completed with Error'
        | 'Failed'
        | 'Cancelled';
      /**
       * Format: uuid
       * @description The worker task: the run-profile activity of a RunProfile step.
       */
      taskId?: string | null;
      /** Format: date-time */
      startedAt?: string | null;
      /** Format: date-time */
      completedAt?: string | null;
      errorMessage?: string | null;
      /**
       * Format: uuid
       * @description RunProfile steps: the run-profile activity.
       */
      activityId?: string | null;
      /** @enum {string|null} */
      activityStatus?: 'InProgress' | 'Complete' | 'CompleteWithWarning' | 'CompleteWithError' | 'FailedWithError' | 'Cancelled' | null;
    };
    ExecutionSummaryDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      scheduleId: string;
      /** @description The schedule's name when the execution was created. */
      scheduleName: string;
      /** @enum {string} */
      status: 'Queued' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled' | 'Paused';
      /** @description The stepIndex running now (or the last one run). */
      currentStepIndex: number;
      /** @description Number of step indices (stages), not of steps. */
      totalSteps: number;
      /** Format: date-time */
      queuedAt: string;
      /** Format: date-time */
      startedAt?: string | null;
      /** Format: date-time */
      completedAt?: string | null;
      /**
       * @description NotSet: started by the cron trigger.
       * @enum {string}
       */
      initiatedByType: 'User' | 'ApiKey' | 'NotSet';
      /** Format: uuid */
      initiatedById?: string | null;
      initiatedByName?: string | null;
      /**
       * @description Why it failed; on a Completed execution, the continueOnFailure steps that failed.
       * @example Step 1 'HR import' failed: exit code 3
       */
      errorMessage?: string | null;
    };
    ExpressionEvaluationErrorDto: {
      /** @example DivisionByZero */
      code: string;
      message: string;
      position: components['schemas']['ExpressionPositionDto'];
      /** @description The source text of the operator or call that failed. */
      token: string;
    };
    ExpressionFunctionDto: {
      /** @example Left */
      name: string;
      aliases: string[];
      /** @enum {string} */
      category: 'Text' | 'Collections' | 'Logic' | 'Dates' | 'Conversion' | 'Directory' | 'Bits';
      /** @example Left(value: text, count: whole number) → text */
      signature: string;
      parameters: components['schemas']['ExpressionFunctionParameterDto'][];
      returns: string;
      description: string;
      /** @description What the function does with null arguments. */
      nulls: string;
      examples: components['schemas']['ExpressionFunctionExampleDto'][];
      deterministic: boolean;
    };
    ExpressionFunctionExampleDto: {
      expression: string;
      result: string;
      deterministic?: boolean;
    };
    ExpressionFunctionParameterDto: {
      name: string;
      /** @example text */
      type: string;
      optional?: boolean;
      variadic?: boolean;
    };
    ExpressionInputsDto: {
      mv: string[];
      cs: string[];
    };
    ExpressionPositionDto: {
      /** @description 1-based. */
      line: number;
      /** @description 1-based, in UTF-16 code units. */
      column: number;
      /** @description 0-based. */
      offset: number;
    };
    HistoryCleanupResultDto: {
      /** @description Connected system object change records deleted. */
      csoChangesDeleted: number;
      /** @description Metaverse object change records deleted. */
      mvoChangesDeleted: number;
      /** @description Activities deleted, with their execution items. */
      activitiesDeleted: number;
      /**
       * Format: date-time
       * @description Time of the oldest record deleted (change time, or creation time of an activity); null when nothing was deleted.
       */
      oldestRecordDeleted: string | null;
      /**
       * Format: date-time
       * @description Time of the newest record deleted; null when nothing was deleted.
       */
      newestRecordDeleted: string | null;
      /**
       * Format: date-time
       * @description Records older than this were deleted (now minus History.RetentionPeriod).
       */
      cutoffDate: string;
      /** @description History.RetentionPeriod in whole days. */
      retentionPeriodDays: number;
      /** @description Maximum records deleted per record type in one batch (History.CleanupBatchSize). */
      batchSize: number;
    };
    JoinedMetaverseObjectDto: {
      /** Format: uuid */
      id: string;
      displayName?: string | null;
      typeName: string;
    };
    LinkedConnectedSystemObjectDto: {
      /** Format: uuid */
      id: string;
      connectedSystemId: number;
      connectedSystemName: string;
      /** @description The object's display name, else its external ID. */
      displayName?: string | null;
    };
    LogEntryDto: {
      /** Format: date-time */
      timestamp: string;
      /**
       * @example Information
       * @enum {string}
       */
      level: 'Verbose' | 'Debug' | 'Information' | 'Warning' | 'Error' | 'Fatal';
      /**
       * @example INF
       * @enum {string}
       */
      levelShort: 'VRB' | 'DBG' | 'INF' | 'WRN' | 'ERR' | 'FTL';
      message: string;
      /** @description Stack trace or error text. */
      exception?: string | null;
      /** @enum {string} */
      service: 'web' | 'worker' | 'scheduler';
      /**
       * @description Structured properties of the entry; `correlationId` holds the id of the request or job that wrote it.
       * @example {
       *       "correlationId": "6f1c0a3e-1d2b-4c55-9d61-2b0f5a7e9c10",
       *       "durationMs": 12.5
       *     }
       */
      properties?: {
        [key: string]: unknown;
      } | null;
    };
    LogFileDto: {
      /** @example web-2025-03-01.log.1 */
      fileName: string;
      /** @enum {string} */
      service: 'web' | 'worker' | 'scheduler';
      /**
       * Format: date-time
       * @description Midnight UTC of the day the file holds.
       * @example 2025-03-01T00:00:00.000Z
       */
      date: string;
      /** @example 52428800 */
      sizeBytes: number;
      /** @example 50.0 MB */
      sizeFormatted: string;
    };
    LogLevelDto: {
      /** @enum {string} */
      name: 'Verbose' | 'Debug' | 'Information' | 'Warning' | 'Error' | 'Fatal';
      /** @enum {string} */
      short: 'VRB' | 'DBG' | 'INF' | 'WRN' | 'ERR' | 'FTL';
    };
    MappingDto: {
      id: number;
      syncRuleId: number;
      /** Format: date-time */
      created: string;
      /** @description Import rules. */
      targetMetaverseAttributeId?: number | null;
      targetMetaverseAttributeName?: string | null;
      /** @description Export rules. */
      targetConnectedSystemAttributeId?: number | null;
      targetConnectedSystemAttributeName?: string | null;
      /**
       * @description Derived: one source without expression → AttributeMapping; one with an expression → ExpressionMapping; several → AdvancedMapping.
       * @enum {string}
       */
      sourceType: 'AttributeMapping' | 'ExpressionMapping' | 'AdvancedMapping';
      /** @description Ordered by order, then id. */
      sources: components['schemas']['MappingSourceDto'][];
      /** @description Import rules: attribute priority among the contributors of the target (1 = highest); null on Export rules. */
      priority?: number | null;
      nullIsValue: boolean;
      initialExportOnly: boolean;
      enabled: boolean;
    };
    MappingSourceDto: {
      id: number;
      order: number;
      connectedSystemAttributeId?: number | null;
      connectedSystemAttributeName?: string | null;
      metaverseAttributeId?: number | null;
      metaverseAttributeName?: string | null;
      expression?: string | null;
    };
    MappingSourceInputDto: {
      /**
       * @description Evaluation order.
       * @default 0
       */
      order?: number;
      /** @description Import rules: a selected attribute of the rule's connected system object type. */
      connectedSystemAttributeId?: number | null;
      /** @description Export rules: an attribute of the rule's metaverse object type. */
      metaverseAttributeId?: number | null;
      /**
       * @description An expression (docs/expressions.md), validated when saved: errors carry line and column. A source may be an expression alone.
       * @example Trim(cs["givenName"]) + " " + Trim(cs["sn"])
       */
      expression?: string | null;
    };
    MatchingRuleAttributeDto: {
      id: number;
      name: string;
    };
    MatchingRuleDto: {
      id: number;
      syncRuleId: number;
      /** @description 1-based evaluation order. */
      order: number;
      connectedSystemAttributeIds: number[];
      connectedSystemAttributes: components['schemas']['MatchingRuleAttributeDto'][];
      metaverseAttributeId: number;
      metaverseAttributeName: string;
      caseSensitive: boolean;
      /** Format: date-time */
      created: string;
    };
    MatchingRuleOrderDto: {
      /**
       * @description Every matching rule of the sync rule, exactly once, first tried first.
       * @example [
       *       7,
       *       5,
       *       6
       *     ]
       */
      matchingRuleIds: number[];
    };
    MetaverseAttributeChangeDto: {
      attributeId: number;
      /** @description The attribute's current name; null when it is gone from the schema. */
      attributeName: string | null;
      /** @description Before the change (empty when added). Values as stored: text, numbers, booleans, date-time text, GUIDs (references: the referenced object id). */
      oldValues: unknown[];
      /** @description After the change (empty when removed). Values as stored: text, numbers, booleans, date-time text, GUIDs (references: the referenced object id). */
      newValues: unknown[];
      /** @description The connected system that contributed the new values (or the removed ones); null when set through the API. */
      contributedBySystemId: number | null;
      /** @description The system's current name; null when there is none or it is gone. */
      contributedBySystemName: string | null;
    };
    MetaverseAttributeDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @enum {string} */
      type: 'String' | 'Text' | 'Integer' | 'LongNumber' | 'Decimal' | 'Boolean' | 'DateTime' | 'Guid' | 'Binary' | 'Reference';
      /** @enum {string} */
      plurality: 'Single' | 'Multi';
      /** @description Part of the built-in schema (DOMAIN.md §3): name, type and plurality are fixed. */
      isBuiltIn: boolean;
      /** @description Values are kept in the lookup table: exact, case-insensitive filters and matching on it use an index. */
      isIndexed: boolean;
      objectTypeIds: number[];
      objectTypes: components['schemas']['ObjectTypeRefDto'][];
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
    };
    MetaverseAttributeValueDto: {
      /**
       * Format: uuid
       * @description Derived from object, attribute and position (values have no row of their own).
       */
      id: string;
      attributeId: number;
      attributeName: string;
      attributeType: string;
      /** @enum {string} */
      attributePlurality: 'Single' | 'Multi';
      /** @description String, Text, Binary (base64) and Decimal (as text) values. */
      stringValue?: string | null;
      /** Format: date-time */
      dateTimeValue?: string | null;
      /** @description Integer and LongNumber values. */
      intValue?: number | null;
      /** Format: uuid */
      guidValue?: string | null;
      boolValue?: boolean | null;
      /** Format: uuid */
      referenceValueId?: string | null;
      referenceValueDisplayName?: string | null;
      /** @description null: set in the service (Internal). */
      contributedBySystemId?: number | null;
      /** @description null: set in the service (Internal), or the system was deleted. */
      contributedBySystemName?: string | null;
    };
    MetaverseObjectChangeDto: {
      /**
       * Format: uuid
       * @description The activity that made the change.
       */
      activityId: string | null;
      runProfileId: number | null;
      /** @description The run profile's current name; null when it is gone. */
      runProfileName: string | null;
      /**
       * @description Who made the change.
       * @enum {string}
       */
      initiatedByType: 'User' | 'ApiKey' | 'System';
      /** @description The user, API key or "System". */
      initiatedByName: string | null;
      /**
       * Format: uuid
       * @description The change record (UUID v7: time ordered).
       */
      id: string;
      /** @enum {string} */
      changeType: 'Projected' | 'AttributeFlow' | 'Joined' | 'Provisioned' | 'Disconnected' | 'Deleted';
      /** Format: date-time */
      changeTime: string;
      /** @description Empty for Joined, Disconnected and Deleted. */
      attributeChanges: components['schemas']['MetaverseAttributeChangeDto'][];
      /** @description The connected system whose object caused the change. */
      connectedSystemId: number | null;
      /** @description The system's current name; null when it is gone. */
      connectedSystemName: string | null;
      /**
       * Format: uuid
       * @description The connector space object that caused the change.
       */
      connectedSystemObjectId: string | null;
    };
    MetaverseObjectChangePage: {
      items: components['schemas']['MetaverseObjectChangeDto'][];
      /** @description Records that match, on every page. */
      totalCount: number;
      page: number;
      pageSize: number;
    };
    MetaverseObjectDetailDto: {
      /** Format: uuid */
      id: string;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      displayName?: string | null;
      /** @enum {string} */
      status: 'Normal' | 'Obsolete';
      /** @enum {string} */
      origin: 'Projected' | 'Internal';
      /** Format: date-time */
      lastConnectorDisconnectedDate?: string | null;
      isPendingDeletion: boolean;
      /** Format: date-time */
      deletionEligibleDate?: string | null;
      type: components['schemas']['MetaverseObjectTypeRefDto'];
      attributeValues: components['schemas']['MetaverseAttributeValueDto'][];
      connectedSystemObjects: components['schemas']['LinkedConnectedSystemObjectDto'][];
    };
    MetaverseObjectListItemDto: {
      /** Format: uuid */
      id: string;
      /** Format: date-time */
      created: string;
      /** @description Display Name, else Account Name. */
      displayName?: string | null;
      /** @enum {string} */
      status: 'Normal' | 'Obsolete';
      typeId: number;
      typeName: string;
      /**
       * @description Present when attributes were requested.
       * @example {
       *       "Email": "ada@example.org",
       *       "Emails": [
       *         "ada@example.org"
       *       ]
       *     }
       */
      attributes?: {
        [key: string]: unknown;
      };
    };
    MetaverseObjectPageDto: {
      items: components['schemas']['MetaverseObjectListItemDto'][];
      /** @description Exact up to (page - 1) × pageSize + 1000 matching objects; beyond that, that bound (see totalCountIsExact). */
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      /** @description false when counting stopped at the bound: at least totalCount objects match. */
      totalCountIsExact: boolean;
    };
    MetaverseObjectTypeDetailDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @description User and Group: cannot be renamed or deleted. */
      isBuiltIn: boolean;
      /** @enum {string} */
      deletionRule: 'Manual' | 'WhenLastConnectorDisconnected' | 'WhenAuthoritativeSourceDisconnected';
      /**
       * @description null: no grace period.
       * @example 7.00:00:00
       */
      deletionGracePeriod?: string | null;
      deletionTriggerConnectedSystemIds: number[];
      /** @enum {string} */
      deletionTriggerMode: 'Any' | 'All';
      attributeCount: number;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      attributes: components['schemas']['MetaverseAttributeDto'][];
    };
    MetaverseObjectTypeDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @description User and Group: cannot be renamed or deleted. */
      isBuiltIn: boolean;
      /** @enum {string} */
      deletionRule: 'Manual' | 'WhenLastConnectorDisconnected' | 'WhenAuthoritativeSourceDisconnected';
      /**
       * @description null: no grace period.
       * @example 7.00:00:00
       */
      deletionGracePeriod?: string | null;
      deletionTriggerConnectedSystemIds: number[];
      /** @enum {string} */
      deletionTriggerMode: 'Any' | 'All';
      attributeCount: number;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
    };
    MetaverseObjectTypeRefDto: {
      id: number;
      name: string;
    };
    ObjectTypeRefDto: {
      id: number;
      name: string;
    };
    PagedActivities: {
      items: components['schemas']['ActivitySummaryDto'][];
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
    };
    PagedExecutionItems: {
      items: components['schemas']['ExecutionItemDto'][];
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
    };
    PendingDeletionDto: {
      /**
       * Format: uuid
       * @description Metaverse object id.
       */
      id: string;
      displayName?: string | null;
      typeName: string;
      typeId: number;
      /** Format: date-time */
      lastConnectorDisconnectedDate: string;
      /**
       * Format: date-time
       * @description When the grace period expires.
       */
      deletionEligibleDate?: string | null;
      /** @description Whole days from now to deletionEligibleDate, rounded down: negative when overdue, null without a date. */
      daysUntilDeletion?: number | null;
      /**
       * @description Grace period of the object type.
       * @example 7.00:00:00
       */
      gracePeriod?: string | null;
      /** @description Connector space objects still joined (0 when fully disconnected). */
      connectedSystemObjectCount: number;
      /** @enum {string} */
      status: 'Deprovisioning' | 'AwaitingGracePeriod' | 'ReadyForDeletion';
    };
    PendingDeletionPage: {
      items: components['schemas']['PendingDeletionDto'][];
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
    };
    PendingDeletionSummaryDto: {
      totalCount: number;
      deprovisioningCount: number;
      awaitingGracePeriodCount: number;
      readyForDeletionCount: number;
    };
    PendingExportAttributeChangeDto: {
      attributeId: number;
      /** @description null when the attribute is no longer in the schema. */
      attributeName?: string | null;
      /** @enum {string} */
      operation: 'Add' | 'Replace' | 'Remove' | 'RemoveAll';
      /** @description Values to add, replace with or remove. */
      values: unknown[];
      /** @description Reference values still given as metaverse object ids; resolved to the target's identifiers at export time. */
      metaverseObjectIds?: string[] | null;
    };
    PendingExportDto: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      connectedSystemObjectId: string;
      externalId?: string | null;
      displayName?: string | null;
      /** @enum {string} */
      changeType: 'Create' | 'Update' | 'Delete';
      /** @enum {string} */
      status: 'Pending' | 'Exported' | 'Failed';
      attributeChanges: components['schemas']['PendingExportAttributeChangeDto'][];
      /** @description Failed export attempts so far. */
      errorCount: number;
      /** @description Confirming imports that did not yet find the exported values. */
      confirmationAttempts: number;
      /**
       * Format: date-time
       * @description Earliest time of the next attempt after a failure.
       */
      nextAttemptAt?: string | null;
      lastError?: string | null;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
    };
    PendingExportPageDto: {
      items: components['schemas']['PendingExportDto'][];
      /** @description Exact up to (page - 1) × pageSize + 1000 matching exports; beyond that, that bound (see totalCountIsExact). */
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      /** @description false when counting stopped at the bound. */
      totalCountIsExact: boolean;
    };
    QueueProbeDto: {
      /** Format: uuid */
      id: string;
      /** Format: date-time */
      requestedAt: string;
      requestedBy?: string | null;
      /** Format: date-time */
      processedAt?: string | null;
      /** @description The worker (host:pid) that processed it. */
      processedBy?: string | null;
      /** @enum {string} */
      status: 'Queued' | 'Processed';
    };
    ReadinessDto: {
      /** @example healthy */
      status: string;
      /** Format: date-time */
      timestamp: string;
      /** @description Why the service is not ready (database, migrations, Redis, maintenance mode). */
      reasons?: string[];
      /** @description Each dependency: ok, failed or skipped. */
      checks?: {
        [key: string]: string;
      };
    };
    RoleDto: {
      id: number;
      /** @example Administrator */
      name: string;
      description?: string | null;
      isBuiltIn: boolean;
      memberCount: number;
    };
    RoleMemberDto: {
      /** Format: uuid */
      metaverseObjectId: string;
      displayName?: string | null;
      /** Format: date-time */
      added: string;
    };
    RunProfileDto: {
      id: number;
      connectedSystemId: number;
      name: string;
      /** @enum {string} */
      runType: 'FullImport' | 'DeltaImport' | 'FullSynchronisation' | 'DeltaSynchronisation' | 'Export';
      pageSize: number;
      filePath?: string | null;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
    };
    RunProfileExecutionDto: {
      /**
       * Format: uuid
       * @description The InProgress activity of the run; poll GET /api/v1/activities/{id}.
       */
      activityId: string;
    };
    ScheduleDetailDto: {
      /** Format: uuid */
      id: string;
      name: string;
      description?: string | null;
      /** @enum {string} */
      triggerType: 'Cron' | 'Manual';
      /**
       * @description Generated from the pattern (several 5-field lines joined with `; ` when one line cannot express it exactly); the supplied expression for Custom; null while the pattern is incomplete.
       * @example 0 9 * * 1-5; 30 17 * * 1-5
       */
      cronExpression?: string | null;
      /** @enum {string} */
      patternType: 'SpecificTimes' | 'Interval' | 'Custom';
      daysOfWeek?: string | null;
      runTimes?: string | null;
      intervalValue?: number | null;
      /** @enum {string|null} */
      intervalUnit?: 'Minutes' | 'Hours' | null;
      intervalWindowStart?: string | null;
      intervalWindowEnd?: string | null;
      /**
       * @description Canonical IANA name.
       * @example Europe/London
       */
      timeZone: string;
      isEnabled: boolean;
      /**
       * Format: date-time
       * @description When the scheduler last started a cron run; edits never change it.
       */
      lastRunTime?: string | null;
      /**
       * Format: date-time
       * @description Enabled Cron schedules only; null for Manual and disabled ones.
       */
      nextRunTime?: string | null;
      stepCount: number;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      /**
       * Format: uuid
       * @description The latest execution (by queuedAt), whatever its status.
       */
      lastExecutionId?: string | null;
      /** @description Queued, InProgress, Completed, Failed, Cancelled or Paused; null when it never ran. */
      lastExecutionStatus?: string | null;
      /** Format: date-time */
      lastExecutionCompletedAt?: string | null;
      /** @description Ordered by stepIndex. */
      steps: components['schemas']['ScheduleStepDto'][];
    };
    ScheduleDto: {
      /** Format: uuid */
      id: string;
      name: string;
      description?: string | null;
      /** @enum {string} */
      triggerType: 'Cron' | 'Manual';
      /**
       * @description Generated from the pattern (several 5-field lines joined with `; ` when one line cannot express it exactly); the supplied expression for Custom; null while the pattern is incomplete.
       * @example 0 9 * * 1-5; 30 17 * * 1-5
       */
      cronExpression?: string | null;
      /** @enum {string} */
      patternType: 'SpecificTimes' | 'Interval' | 'Custom';
      daysOfWeek?: string | null;
      runTimes?: string | null;
      intervalValue?: number | null;
      /** @enum {string|null} */
      intervalUnit?: 'Minutes' | 'Hours' | null;
      intervalWindowStart?: string | null;
      intervalWindowEnd?: string | null;
      /**
       * @description Canonical IANA name.
       * @example Europe/London
       */
      timeZone: string;
      isEnabled: boolean;
      /**
       * Format: date-time
       * @description When the scheduler last started a cron run; edits never change it.
       */
      lastRunTime?: string | null;
      /**
       * Format: date-time
       * @description Enabled Cron schedules only; null for Manual and disabled ones.
       */
      nextRunTime?: string | null;
      stepCount: number;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      /**
       * Format: uuid
       * @description The latest execution (by queuedAt), whatever its status.
       */
      lastExecutionId?: string | null;
      /** @description Queued, InProgress, Completed, Failed, Cancelled or Paused; null when it never ran. */
      lastExecutionStatus?: string | null;
      /** Format: date-time */
      lastExecutionCompletedAt?: string | null;
    };
    ScheduleExecutionPage: {
      items: components['schemas']['ExecutionSummaryDto'][];
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
    };
    SchedulePage: {
      items: components['schemas']['ScheduleDto'][];
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
    };
    ScheduleStepDto: {
      /** Format: uuid */
      id: string;
      stepIndex: number;
      name?: string | null;
      /** @enum {string} */
      executionMode: 'Sequential' | 'ParallelWithPrevious';
      /** @enum {string} */
      stepType: 'RunProfile' | 'PowerShell' | 'Executable' | 'SqlScript';
      continueOnFailure: boolean;
      timeoutSeconds?: number | null;
      /** @description RunProfile steps. */
      connectedSystemId?: number | null;
      /** @description RunProfile steps; null once the run profile was deleted. */
      runProfileId?: number | null;
      scriptPath?: string | null;
      arguments?: string | null;
      executablePath?: string | null;
      workingDirectory?: string | null;
      /**
       * @description Passwords masked as `*****`; never in clear.
       * @example postgres://meridian:*****@db.example.com:5432/hr
       */
      sqlConnectionString?: string | null;
      sqlScriptPath?: string | null;
    };
    ScheduleStepInputDto: {
      /**
       * Format: uuid
       * @description The id of an existing step of this schedule, to keep it; absent for a new step.
       */
      id?: string | null;
      /** @description 0-based stage; steps with the same index run in parallel, the next index starts when all of them finished. */
      stepIndex: number;
      /** @enum {string} */
      stepType: 'RunProfile' | 'PowerShell' | 'Executable' | 'SqlScript';
      /** @description Display name; absent or null on a RunProfile step: "<connected system> — <run profile>". */
      name?: string | null;
      /**
       * @description Accepted but derived: the first step of an index is Sequential, the others ParallelWithPrevious.
       * @enum {string}
       */
      executionMode?: 'Sequential' | 'ParallelWithPrevious';
      /**
       * @description Whether later steps run when this one fails.
       * @default false
       */
      continueOnFailure?: boolean;
      /** @description null: no timeout. */
      timeoutSeconds?: number | null;
      /** @description RunProfile steps (required): an existing connected system. */
      connectedSystemId?: number | null;
      /** @description RunProfile steps (required): a run profile of that connected system. */
      runProfileId?: number | null;
      /** @description PowerShell steps (required): a script path relative to the scripts root (MERIDIAN_SCRIPTS_ROOT); no absolute paths, no `..`. */
      scriptPath?: string | null;
      /** @description PowerShell and Executable steps: the arguments, split like a shell would (quotes) but never run through one. */
      arguments?: string | null;
      /** @description Executable steps (required): relative to the scripts root. */
      executablePath?: string | null;
      /** @description Executable steps: relative to the scripts root (default: the scripts root). */
      workingDirectory?: string | null;
      /**
       * @description SqlScript steps (required): a postgres://, postgresql://, mysql:// or mariadb:// URL. Sealed at rest; responses mask passwords as `*****`, and a `*****` sent back keeps the stored password.
       * @example postgres://meridian:*****@db.example.com:5432/hr
       */
      sqlConnectionString?: string | null;
      /** @description SqlScript steps (required): relative to the scripts root. */
      sqlScriptPath?: string | null;
    };
    SchemaAttributeChangeDto: {
      objectType: string;
      attribute: string;
      /**
       * @example [
       *       "type"
       *     ]
       */
      fields: string[];
    };
    SchemaAttributeRefDto: {
      objectType: string;
      attribute: string;
    };
    SchemaImportResultDto: {
      /** Format: uuid */
      activityId: string;
      objectTypesAdded: number;
      attributesAdded: number;
      /** @description Existing attributes whose connector-owned definition changed, or that were flagged or restored. */
      attributesUpdated: number;
      /** @description Object types no longer in the schema (kept, flagged presentInSchema false). */
      objectTypesRemoved: string[];
      /** @description Attributes no longer in the schema (kept, flagged presentInSchema false). */
      attributesRemoved: components['schemas']['SchemaAttributeRefDto'][];
      objectTypesRestored: string[];
      attributesRestored: components['schemas']['SchemaAttributeRefDto'][];
      attributesChanged: components['schemas']['SchemaAttributeChangeDto'][];
      objectTypeCount: number;
      fullSyncRequired: boolean;
      warnings: string[];
    };
    ScopingCriteriaDto: {
      syncRuleId: number;
      /** @description As stored: defaults filled in, absolute dates as ISO instants, relative dates as objects. */
      scopingCriteria: components['schemas']['ScopingGroupDto'][];
    };
    ScopingCriterionDto: {
      /**
       * @description Import rules: a selected attribute of the rule's connected system object type. Export rules: an attribute of its metaverse object type.
       * @example 12
       */
      attributeId: number;
      /**
       * @description Operators depend on the attribute type: text supports Equals…NotContains; numbers and dates Equals, NotEquals and the orderings; Boolean and Guid Equals/NotEquals; every type IsPresent/IsNotPresent (the only ones for Reference and Binary).
       * @enum {string}
       */
      operator:
        | 'Equals'
        | 'NotEquals'
        | 'StartsWith'
        | 'NotStartsWith'
        | 'EndsWith'
        | 'NotEndsWith'
        | 'Contains'
        | 'NotContains'
        | 'LessThan'
        | 'LessThanOrEqual'
        | 'GreaterThan'
        | 'GreaterThanOrEqual'
        | 'IsPresent'
        | 'IsNotPresent';
      /**
       * @description The value to compare with; absent or null for IsPresent/IsNotPresent. Text for text and Guid attributes, a number for numbers, true/false for Boolean. DateTime: an ISO 8601 date or date-time (UTC unless it names an offset; stored as an ISO instant), a relative date as text such as "30 days ago" or "2 weeks from now", or { "relative": { "amount": 30, "unit": "Days", "direction": "Ago" } } (text is stored in this form).
       * @example Sales
       */
      value?:
        | (string | null)
        | number
        | boolean
        | {
            relative: {
              /** @example 30 */
              amount: number;
              /** @enum {string} */
              unit: 'Minutes' | 'Hours' | 'Days' | 'Weeks' | 'Months' | 'Years';
              /** @enum {string} */
              direction: 'Ago' | 'FromNow';
            };
          };
      /**
       * @description Text attributes only: compare respecting case (default: ignoring case).
       * @default false
       */
      caseSensitive?: boolean;
    };
    ScopingGroupDto: {
      /** @enum {string} */
      type: 'All' | 'Any';
      /** @default [] */
      criteria?: components['schemas']['ScopingCriterionDto'][];
      /**
       * @description Nested groups, at most 5 levels deep in all.
       * @default []
       */
      groups?: components['schemas']['ScopingGroupDto'][];
    };
    SetAttributePriorityDto: {
      metaverseObjectTypeId: number;
      metaverseAttributeId: number;
      /**
       * @description Every import mapping contributing the attribute, exactly once, highest priority first.
       * @example [
       *       14,
       *       9
       *     ]
       */
      mappingIds: number[];
    };
    SetScopingCriteriaDto: {
      /** @description Top-level groups OR together; an empty array puts every object in scope. At most 5 levels, 50 groups and 200 criteria. Validated against the rule's attributes; errors name the path, e.g. scopingCriteria[0].criteria[1].operator. */
      scopingCriteria: components['schemas']['ScopingGroupDto'][];
    };
    SettingDto: {
      /** @example Sync.PageSize */
      key: string;
      /** @example Sync */
      category: string;
      description: string;
      /** @enum {string} */
      valueType: 'String' | 'Boolean' | 'Integer' | 'TimeSpan' | 'Enum';
      /** @example 1000 */
      defaultValue: string | number | boolean;
      /** @description The administrator's value; null when the default applies. */
      value?: (string | null) | number | boolean;
      /** @description The value in force. */
      effectiveValue: string | number | boolean;
      /** @description Reflects the environment; PUT and DELETE are refused. */
      isReadOnly: boolean;
      isDefault: boolean;
      allowedValues?: string[] | null;
      minimum?: number | null;
      maximum?: number | null;
      /** Format: date-time */
      lastUpdated?: string | null;
      lastUpdatedBy?: string | null;
    };
    StatusDto: {
      /** @example healthy */
      status: string;
      /** Format: date-time */
      timestamp: string;
    };
    SyncRuleDetailDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @enum {string} */
      direction: 'Import' | 'Export';
      enabled: boolean;
      connectedSystemId: number;
      connectedSystemName: string;
      connectedSystemObjectTypeId: number;
      connectedSystemObjectTypeName: string;
      metaverseObjectTypeId: number;
      metaverseObjectTypeName: string;
      /** @description Always false on Export rules. */
      projectToMetaverse: boolean;
      /** @description Always false on Import rules. */
      provisionToConnectedSystem: boolean;
      /**
       * @description Null on Export rules.
       * @enum {string|null}
       */
      inboundOutOfScopeAction?: 'RemainJoined' | 'Disconnect' | null;
      /**
       * @description Null on Import rules.
       * @enum {string|null}
       */
      outboundDeprovisionAction?: 'Disconnect' | 'Delete' | null;
      /** @description False when every object is in scope. */
      hasScopingCriteria: boolean;
      mappingCount: number;
      matchingRuleCount: number;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
      scopingCriteria: components['schemas']['ScopingGroupDto'][];
      mappings: components['schemas']['MappingDto'][];
      /** @description Import rules only; in evaluation order. */
      matchingRules: components['schemas']['MatchingRuleDto'][];
    };
    SyncRuleDto: {
      id: number;
      name: string;
      description?: string | null;
      /** @enum {string} */
      direction: 'Import' | 'Export';
      enabled: boolean;
      connectedSystemId: number;
      connectedSystemName: string;
      connectedSystemObjectTypeId: number;
      connectedSystemObjectTypeName: string;
      metaverseObjectTypeId: number;
      metaverseObjectTypeName: string;
      /** @description Always false on Export rules. */
      projectToMetaverse: boolean;
      /** @description Always false on Import rules. */
      provisionToConnectedSystem: boolean;
      /**
       * @description Null on Export rules.
       * @enum {string|null}
       */
      inboundOutOfScopeAction?: 'RemainJoined' | 'Disconnect' | null;
      /**
       * @description Null on Import rules.
       * @enum {string|null}
       */
      outboundDeprovisionAction?: 'Disconnect' | 'Delete' | null;
      /** @description False when every object is in scope. */
      hasScopingCriteria: boolean;
      mappingCount: number;
      matchingRuleCount: number;
      /** Format: date-time */
      created: string;
      /** Format: date-time */
      lastUpdated?: string | null;
    };
    SyncRulePage: {
      items: components['schemas']['SyncRuleDto'][];
      totalCount: number;
      page: number;
      pageSize: number;
      totalPages: number;
      hasNextPage: boolean;
      hasPreviousPage: boolean;
    };
    TestConnectionResultDto: {
      success: boolean;
      /** @example The file hr/people.csv is readable (12 columns). */
      message: string;
      details?: {
        [key: string]: unknown;
      } | null;
    };
    TestExpressionDto: {
      /** @example Lower(cs["givenName"]) + "." + Lower(cs["sn"]) */
      expression: string;
      /**
       * @description Sample metaverse attributes (mv["…"]). Attribute name → value: text, number, true/false, null, a list of those (a multi-valued attribute), or a date written { "$date": "2025-01-31T08:00:00Z" }. Names are matched ignoring case.
       * @example {
       *       "Display Name": "Ada Lovelace"
       *     }
       */
      mv?: {
        [key: string]: unknown;
      };
      /**
       * @description Sample connected system attributes (cs["…"]). Attribute name → value: text, number, true/false, null, a list of those (a multi-valued attribute), or a date written { "$date": "2025-01-31T08:00:00Z" }. Names are matched ignoring case.
       * @example {
       *       "givenName": "Ada",
       *       "sn": "Lovelace"
       *     }
       */
      cs?: {
        [key: string]: unknown;
      };
      /**
       * Format: date-time
       * @description The clock Now() and Today() read (default: the server clock).
       */
      now?: string;
    };
    TestExpressionResultDto: {
      /** @description The result as JSON: text, a number, true/false, dates as ISO 8601 text, lists as arrays of those; null when evaluation failed (or the result is null). */
      result: (string | null) | number | boolean | ((string | null) | number | boolean)[];
      /**
       * @description Null when evaluation failed.
       * @enum {string|null}
       */
      resultType?: 'text' | 'number' | 'boolean' | 'date' | 'list' | 'null' | null;
      /**
       * @description The result as the expression reference shows it (text quoted, dates marked).
       * @example "ada.lovelace"
       */
      resultText?: string | null;
      /** @description The attributes the expression reads. */
      inputs: components['schemas']['ExpressionInputsDto'];
      /** @description Inputs with no value in the sample. */
      missingInputs: components['schemas']['ExpressionInputsDto'];
      /** @description Functions the expression calls. */
      functions: string[];
      /** @description False when the result depends on the clock or randomness. */
      deterministic: boolean;
      /** @description Set when evaluation failed (the expression compiled but could not be evaluated with these values). */
      error?: components['schemas']['ExpressionEvaluationErrorDto'] | (never | null);
    };
    UpdateApiKeyDto: {
      name?: string;
      description?: string | null;
      roles?: string[];
      /** Format: date-time */
      expiresAt?: string | null;
      isEnabled?: boolean;
    };
    UpdateAttributeDto: {
      /** @description External ID and secondary external ID attributes are always selected; deselecting one is a 400. */
      selected?: boolean;
      /** @description true clears it from every other attribute of the object type (and selects this one). */
      isExternalId?: boolean;
      /** @description true clears it from every other attribute of the object type (and selects this one). */
      isSecondaryExternalId?: boolean;
    };
    UpdateCertificateDto: {
      name?: string;
      /** @description null or empty text clears the notes. */
      notes?: string | null;
      isEnabled?: boolean;
    };
    UpdateConnectedSystemDto: {
      name?: string;
      description?: string | null;
      /** @description Immutable: only the current value is accepted. */
      connectorType?: string;
      /** @description Connector settings by name (see GET /api/v1/synchronisation/connectors for each connector's schema), validated against the connector's settings schema; an invalid or unknown setting is a 400 VALIDATION_ERROR naming `settings.<name>`. Secret settings (e.g. passwords) are encrypted at rest and never returned. Partial: settings not named keep their value. A secret that is omitted (or sent as "") keeps its stored value; a secret sent as null is cleared (refused when the setting is required). */
      settings?: {
        [key: string]: (string | null) | number | boolean;
      };
      /** @enum {string} */
      unresolvedReferenceHandling?: 'Error' | 'Warn' | 'Ignore';
    };
    UpdateMappingDto: {
      /** @description Required for Import rules: an attribute of the rule's metaverse object type. */
      targetMetaverseAttributeId?: number | null;
      /** @description Required for Export rules: a selected, writable attribute of the rule's connected system object type. */
      targetConnectedSystemAttributeId?: number | null;
      /** @description Import rules only: position among the contributors of the target metaverse attribute (1 = highest); default last. Past the end means last. */
      priority?: number;
      /**
       * @description Import rules only: an empty value from this mapping still wins (it asserts the attribute is empty).
       * @default false
       */
      nullIsValue?: boolean;
      /**
       * @description Export rules only: flow when the object is created (provisioned), never on updates.
       * @default false
       */
      initialExportOnly?: boolean;
      /** @default true */
      enabled?: boolean;
      /** @description Replaces every source. */
      sources?: components['schemas']['MappingSourceInputDto'][];
    };
    UpdateMatchingRuleDto: {
      /**
       * @description Compare respecting case (default: ignoring case).
       * @default false
       */
      caseSensitive?: boolean;
      /** @description 1-based position in evaluation order (1 = tried first); default last. Past the end means last. */
      order?: number;
      connectedSystemAttributeIds?: number[];
      metaverseAttributeId?: number;
    };
    UpdateMetaverseAttributeDto: {
      /** @description Custom attributes only; refused while mapping expressions name the attribute. */
      name?: string;
      /** @description Custom attributes only. */
      description?: string | null;
      /**
       * @description Custom attributes only, and only while no object holds a value.
       * @enum {string}
       */
      type?: 'String' | 'Text' | 'Integer' | 'LongNumber' | 'Decimal' | 'Boolean' | 'DateTime' | 'Guid' | 'Binary' | 'Reference';
      /**
       * @description Custom attributes only, and only while no object holds a value.
       * @enum {string}
       */
      plurality?: 'Single' | 'Multi';
      /** @description Replaces the object types that have the attribute. A type cannot be removed while its objects hold values for the attribute or its sync rules use it; built-in attributes stay on their built-in types. */
      objectTypeIds?: number[];
      /** @description true builds the lookup rows for existing values (one statement, inside the request); false removes them. Refused for the OIDC subject attribute and attributes used by matching rules. */
      isIndexed?: boolean;
    };
    UpdateMetaverseObjectDto: {
      /**
       * @description Merged into the object: each named attribute is replaced; null, "" or [] removes it; attributes not named keep their values.
       * @example {
       *       "Job Title": "Analyst",
       *       "Nickname": null
       *     }
       */
      attributes: {
        [key: string]: unknown;
      };
    };
    UpdateMetaverseObjectTypeDto: {
      /**
       * @description Manual: never automatic. WhenLastConnectorDisconnected: when the last connector space object disconnects. WhenAuthoritativeSourceDisconnected: when the trigger systems disconnect (deletionTriggerMode). Internal objects are never deleted automatically.
       * @default WhenLastConnectorDisconnected
       * @enum {string}
       */
      deletionRule?: 'Manual' | 'WhenLastConnectorDisconnected' | 'WhenAuthoritativeSourceDisconnected';
      /**
       * @description How long an object stays a pending deletion before housekeeping deletes it: a timespan "d.hh:mm:ss" or "hh:mm:ss" in whole seconds, at most 3650 days. null, 0 or "00:00:00": no grace period (deleted within the synchronisation run).
       * @example 7.00:00:00
       */
      deletionGracePeriod?: string | null;
      /**
       * @description Connected systems whose disconnection deletes the object. Required (non-empty) with WhenAuthoritativeSourceDisconnected, refused with the other rules; changing the rule away from WhenAuthoritativeSourceDisconnected clears them.
       * @example [
       *       1
       *     ]
       */
      deletionTriggerConnectedSystemIds?: number[];
      /**
       * @description Any: one trigger system disconnecting is enough. All: every one must.
       * @default Any
       * @enum {string}
       */
      deletionTriggerMode?: 'Any' | 'All';
      /** @description Custom types only: built-in User and Group cannot be renamed. */
      name?: string;
      /** @description Custom types only. */
      description?: string | null;
      /** @description Replaces the set of attributes the type has. An attribute cannot be taken off while objects of the type hold values for it or sync rules of the type use it; the attributes of the built-in schema stay on User and Group. */
      attributeIds?: number[];
    };
    UpdateObjectTypeDto: {
      selected?: boolean;
      removeContributedAttributesOnObsoletion?: boolean;
    };
    UpdateRunProfileDto: {
      name?: string;
      /** @enum {string} */
      runType?: 'FullImport' | 'DeltaImport' | 'FullSynchronisation' | 'DeltaSynchronisation' | 'Export';
      pageSize?: number;
      /** @description Overrides the connector's file path for this run (connectors with a filePath setting, import and export run types only). Relative to the connector files root (MERIDIAN_CONNECTOR_FILES_ROOT); absolute paths and ".." are refused. null removes the override. */
      filePath?: string | null;
    };
    UpdateScheduleDto: {
      description?: string | null;
      /**
       * @description Required when triggerType is Cron.
       * @default SpecificTimes
       * @enum {string}
       */
      patternType?: 'SpecificTimes' | 'Interval' | 'Custom';
      /**
       * @description Comma-separated day numbers, 0 = Sunday to 6 = Saturday, no repeats (e.g. `1,2,3,4,5`). Required for SpecificTimes and Interval Cron schedules.
       * @example 1,2,3,4,5
       */
      daysOfWeek?: string | null;
      /**
       * @description SpecificTimes: comma-separated 24-hour times `HH:mm` (00:00-23:59), no repeats. Every time fires on every selected day.
       * @example 09:00,17:30
       */
      runTimes?: string | null;
      /** @description Interval: every N minutes or hours. */
      intervalValue?: number | null;
      /** @enum {string|null} */
      intervalUnit?: 'Minutes' | 'Hours' | null;
      /**
       * @description Interval: `HH:mm`, the first run of each selected day.
       * @example 08:00
       */
      intervalWindowStart?: string | null;
      /**
       * @description Interval: `HH:mm`, later than the start; a run falling exactly on it still happens (inclusive).
       * @example 18:00
       */
      intervalWindowEnd?: string | null;
      /**
       * @description Custom only (otherwise generated and read-only; a value sent with another pattern type is ignored): 5-field cron (minute hour day-of-month month day-of-week), several lines separated by `;`. No seconds, no nicknames.
       * @example 0 9 * * 1-5
       */
      cronExpression?: string | null;
      /**
       * @description IANA time zone the days and times are read in; null resets it to UTC.
       * @default UTC
       * @example Europe/London
       */
      timeZone?: string;
      /** @description Create default: false (a new schedule fires only once enabled). */
      isEnabled?: boolean;
      /** @description The full desired list of steps (at most 100); on update it replaces every existing step. Steps sent with the `id` of an existing step keep it (updated in place); steps without `id` are added; existing steps left out are deleted. Indices run from 0 without gaps; steps with the same index run in parallel. Errors name the step: `steps[1].runProfileId`. */
      steps?: components['schemas']['ScheduleStepInputDto'][];
      name?: string;
      /** @enum {string} */
      triggerType?: 'Cron' | 'Manual';
    };
    UpdateSettingDto: {
      /**
       * @description Integer settings take a number, Boolean true/false, TimeSpan "hh:mm:ss" or "d.hh:mm:ss", Enum one of allowedValues.
       * @example 500
       */
      value: string | number | boolean;
    };
    UpdateSyncRuleDto: {
      description?: string | null;
      /**
       * @description Import rules only: create a metaverse object for an in-scope object that matches none.
       * @default false
       */
      projectToMetaverse?: boolean;
      /**
       * @description Export rules only: create the object in the connected system for an in-scope metaverse object that has none there.
       * @default false
       */
      provisionToConnectedSystem?: boolean;
      /** @default true */
      enabled?: boolean;
      /**
       * @description Import rules only: what happens to a joined object that leaves the scope.
       * @default Disconnect
       * @enum {string}
       */
      inboundOutOfScopeAction?: 'RemainJoined' | 'Disconnect';
      /**
       * @description Export rules only: what happens to a joined object whose metaverse object leaves the scope.
       * @default Disconnect
       * @enum {string}
       */
      outboundDeprovisionAction?: 'Disconnect' | 'Delete';
      /**
       * @description Top-level groups OR together; an empty array puts every object in scope. At most 5 levels, 50 groups and 200 criteria. Validated against the rule's attributes; errors name the path, e.g. scopingCriteria[0].criteria[1].operator.
       * @default []
       */
      scopingCriteria?: components['schemas']['ScopingGroupDto'][];
      name?: string;
      /** @description Immutable: only the current value is accepted. */
      connectedSystemId?: number;
      /**
       * @description Immutable: only the current value is accepted.
       * @enum {string}
       */
      direction?: 'Import' | 'Export';
      /** @description Changeable only while the rule has no mappings, matching rules or criteria on the old type. */
      connectedSystemObjectTypeId?: number;
      /** @description Changeable only while the rule has no mappings, matching rules or criteria on the old type. */
      metaverseObjectTypeId?: number;
    };
    UploadCertificateDto: {
      /** @example Acme Root CA */
      name: string;
      /** @example Issues the directory servers' LDAPS certificates. */
      notes?: string | null;
      /**
       * @description Only enabled certificates are trusted by connectors.
       * @default true
       */
      isEnabled?: boolean;
      /**
       * @description The certificate as PEM text: exactly one CERTIFICATE block; text around it is ignored. Give exactly one of certificate and certificateBase64. A PEM that contains a PRIVATE KEY block is refused.
       * @example -----BEGIN CERTIFICATE-----
       *     MIIDdzCCAl+gAwIBAgIU…
       *     -----END CERTIFICATE-----
       */
      certificate?: string;
      /**
       * @description The certificate as DER, base64-encoded (the content of a .cer/.der file). Give exactly one of certificate and certificateBase64.
       * @example MIIDdzCCAl+gAwIBAgIU…
       */
      certificateBase64?: string;
    };
    UserInfoDto: {
      authorised: boolean;
      isAdministrator: boolean;
      name: string;
      /** @enum {string} */
      authMethod: 'oauth' | 'api_key';
      /** Format: uuid */
      metaverseObjectId?: string | null;
      roles: string[];
      message?: string | null;
    };
    VersionDto: {
      /** @example Meridian */
      product: string;
      /** @example 0.1.0 */
      version: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  ActivitiesController_list: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description Filters by target name or type (contains, case-insensitive). */
        search?: string;
        sortBy?: 'created' | 'executed' | 'status' | 'type' | 'target';
        sortDirection?: 'asc' | 'desc';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PagedActivities'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ActivitiesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActivityDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ActivitiesController_cancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActivityDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ActivitiesController_children: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActivitySummaryDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ActivitiesController_items: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PagedExecutionItems'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ActivitiesController_stats: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ActivityRunStatsDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ApiKeysController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ApiKeysController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateApiKeyDto'];
      };
    };
    responses: {
      /** @description The key, with its secret (shown once). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedApiKeyDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ApiKeysController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The key without its secret. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ApiKeysController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateApiKeyDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ApiKeysController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  AuthController_authConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What an interactive client needs for the authorisation code flow with PKCE. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuthConfigDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  CertificatesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CertificateDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  CertificatesController_upload: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UploadCertificateDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CertificateDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  CertificatesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CertificateDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  CertificatesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  CertificatesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateCertificateDto'];
      };
    };
    responses: {
      /** @description Updated. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  CertificatesController_pem: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The certificate, PEM encoded. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-pem-file': string;
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HealthController_health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The web process is up. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StatusDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HealthController_live: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The process is alive (no dependency checks). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StatusDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HealthController_ready: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `ready`: database and Redis reachable, migrations applied, maintenance mode off. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReadinessDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description `not_ready` with the reasons. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReadinessDto'];
        };
      };
    };
  };
  HealthController_version: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VersionDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HistoryCleanupController_cleanup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['HistoryCleanupResultDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HistoryController_count: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChangeRecordCountDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HistoryController_deletedConnectorSpaceObjects: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description Records changed on or after this instant (ISO 8601; no offset means UTC). */
        fromDate?: string;
        /** @description Records changed on or before this instant, inclusive to its millisecond (ISO 8601; no offset means UTC). */
        toDate?: string;
        /** @description Only objects deleted from this connected system. */
        connectedSystemId?: number;
        /** @description External ID contains this text, ignoring case (%, _ and \ are literal). */
        externalIdSearch?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeletedCsoPage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  HistoryController_deletedMetaverseObjects: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description Records changed on or after this instant (ISO 8601; no offset means UTC). */
        fromDate?: string;
        /** @description Records changed on or before this instant, inclusive to its millisecond (ISO 8601; no offset means UTC). */
        toDate?: string;
        /** @description Only objects of this metaverse object type. */
        objectTypeId?: number;
        /** @description Display name contains this text, ignoring case (%, _ and \ are literal). */
        displayNameSearch?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeletedMvoPage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  LogsController_list: {
    parameters: {
      query?: {
        /** @description Only this service; all three when absent. */
        service?: 'web' | 'worker' | 'scheduler';
        /** @description An ISO 8601 date or datetime; the entries of the UTC day that contains it. A datetime without an offset is UTC. Default: today (UTC). */
        date?: string;
        /** @description Repeatable: ?levels=Error&levels=Warning (a comma-separated list works too). Names or short forms, case-insensitive: Verbose, Debug, Information, Warning, Error, Fatal (or VRB, DBG, INF, WRN, ERR, FTL). Default: all levels. */
        levels?: ('Verbose' | 'Debug' | 'Information' | 'Warning' | 'Error' | 'Fatal')[];
        /** @description Case-insensitive text to find in the message or the exception. */
        search?: string;
        /** @description Entries to return. */
        limit?: number;
        /** @description Matching entries to skip (newest first) before the first one returned. */
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description At most `limit` entries after skipping `offset` matches, newest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LogEntryDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  LogsController_files: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Sorted by date descending, then service, then newest roll first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LogFileDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  LogsController_levels: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Verbose, Debug, Information, Warning, Error, Fatal. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LogLevelDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  LogsController_services: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description web, worker and scheduler. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': ('web' | 'worker' | 'scheduler')[];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseAttributesController_list: {
    parameters: {
      query?: {
        /** @description Only the attributes of this object type. */
        objectTypeId?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Attributes by name. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseAttributeDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseAttributesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateMetaverseAttributeDto'];
      };
    };
    responses: {
      /** @description A custom attribute. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseAttributeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseAttributesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseAttributeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseAttributesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateMetaverseAttributeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseAttributeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseAttributesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. Custom attributes only (built-ins: 400), and only when no object holds a value and no sync rule uses it (409). */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectTypesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Built-in User and Group, then custom types, in id order. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectTypeDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectTypesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateMetaverseObjectTypeDto'];
      };
    };
    responses: {
      /** @description A custom object type. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectTypeDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectTypesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The object type with its attributes. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectTypeDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectTypesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateMetaverseObjectTypeDto'];
      };
    };
    responses: {
      /** @description Updates the deletion rule (any type) and, for custom types, name, description and attributes. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectTypeDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectTypesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. Custom types only (built-ins: 400), and only without objects and sync rules (409). */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectsController_list: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description Only objects of this type. */
        objectTypeId?: number;
        /** @description Display name contains this text, ignoring case; a term of one or two letters or digits matches the start of the name or of a word in it (served by a trigram index; see docs/metaverse.md). */
        search?: string;
        /** @description Comma-separated attribute names, or * for every attribute that has a value; returned in the attributes dictionary of each item (multi-valued attributes as arrays; named attributes without a value as null or []). */
        attributes?: string;
        /** @description Filter by this attribute (with filterAttributeValue). Indexed attributes use the lookup index; others are read from every object (slow at scale). */
        filterAttributeName?: string;
        /** @description Exact, case-insensitive value of filterAttributeName (any value of a multi-valued attribute). */
        filterAttributeValue?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ordered by id (every filter is then an index walk; see docs/metaverse.md). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectPageDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateMetaverseObjectDto'];
      };
    };
    responses: {
      /** @description An Internal metaverse object (e.g. an administrator who signs in with OIDC). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectsController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateMetaverseObjectDto'];
      };
    };
    responses: {
      /** @description Merges attribute values into an Internal object; Projected objects are refused (400). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MetaverseObjectsController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. Internal objects only (Projected: 400); never the last Administrator (409). */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ObjectHistoryController_metaverseObject: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
      };
      header?: never;
      path: {
        /** @description The metaverse object (it may have been deleted). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MetaverseObjectChangePage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  PendingDeletionsController_list: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description Only objects of this metaverse object type (unknown type: 400). */
        objectTypeId?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PendingDeletionPage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  PendingDeletionsController_count: {
    parameters: {
      query?: {
        /** @description Only objects of this metaverse object type (unknown type: 400). */
        objectTypeId?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': number;
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  PendingDeletionsController_summary: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PendingDeletionSummaryDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RolesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RoleDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RolesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RoleDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RolesController_members: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RoleMemberDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RolesController_add: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AddRoleMemberDto'];
      };
    };
    responses: {
      /** @description The members after the addition (adding a member twice is harmless). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RoleMemberDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RolesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
        metaverseObjectId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ScheduleExecutionsController_list: {
    parameters: {
      query?: {
        /** @description Only executions of this schedule (an unknown schedule gives an empty page). */
        scheduleId?: string;
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        sortBy?: 'queuedAt' | 'startedAt' | 'completedAt' | 'status';
        /** @description Newest first by default. Executions without the sorted time (not started, not finished) come last. */
        sortDescending?: boolean;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleExecutionPage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ScheduleExecutionsController_active: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExecutionSummaryDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ScheduleExecutionsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExecutionDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ScheduleExecutionsController_cancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExecutionDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_list: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SchedulePage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateScheduleDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateScheduleDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_disable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SchedulesController_enable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScheduleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ScheduleRunController_run: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExecutionDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ServiceSettingsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SettingDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ServiceSettingsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        key: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SettingDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ServiceSettingsController_set: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        key: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateSettingDto'];
      };
    };
    responses: {
      /** @description The setting after the change; the change is recorded as an activity. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SettingDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ServiceSettingsController_revert: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        key: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Reverted to the default; recorded as an activity. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SettingDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  AttributePrioritiesController_list: {
    parameters: {
      query?: {
        /** @description Only contributors of this metaverse object type. */
        metaverseObjectTypeId?: number;
        /** @description Only contributors of this metaverse attribute. */
        metaverseAttributeId?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AttributePriorityDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  AttributePrioritiesController_set: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetAttributePriorityDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AttributePriorityDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemSummaryDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateConnectedSystemDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateConnectedSystemDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_remove: {
    parameters: {
      query?: {
        /** @description Also delete the change history of the system's objects. */
        deleteChangeHistory?: boolean;
      };
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted (CompletedImmediately). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemDeletionResultDto'];
        };
      };
      /** @description Queued (QueuedAsBackgroundJob or QueuedAfterSync); follow the activity. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemDeletionResultDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectorSpaceController_list: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description External ID, secondary external ID or display name starts with this text, ignoring case (% and _ are literal). Bounded, not indexed: see docs/connector-space.md. */
        search?: string;
        status?: 'Normal' | 'Obsolete' | 'PendingProvisioning';
        /** @description Only objects of this object type of the system (another system's type: 400). */
        objectTypeId?: number;
        /** @description true: only objects joined to a metaverse object; false: only objects that are not. */
        joined?: boolean;
      };
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectorSpacePageDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectorSpaceController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        objectId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectorSpaceObjectDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ObjectHistoryController_connectorSpaceObject: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
      };
      header?: never;
      path: {
        connectedSystemId: number;
        /** @description The connector space object (it may have been deleted). */
        objectId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectorSpaceObjectChangePage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_preview: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectedSystemDeletionPreviewDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemObjectTypesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CsObjectTypeDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemObjectTypesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        objectTypeId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateObjectTypeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CsObjectTypeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemObjectTypesController_bulkUpdate: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        objectTypeId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['BulkUpdateAttributesDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkAttributeUpdateResultDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemObjectTypesController_updateAttribute: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        objectTypeId: number;
        attributeId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateAttributeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CsAttributeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectorSpaceController_listPendingExports: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        status?: 'Pending' | 'Exported' | 'Failed';
        changeType?: 'Create' | 'Update' | 'Delete';
      };
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PendingExportPageDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RunProfilesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunProfileDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RunProfilesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateRunProfileDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunProfileDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RunProfilesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        runProfileId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunProfileDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RunProfilesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        runProfileId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateRunProfileDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunProfileDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RunProfilesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        runProfileId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  RunProfilesController_execute: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
        runProfileId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunProfileExecutionDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_importSchema: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SchemaImportResultDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectedSystemsController_testConnection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectedSystemId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TestConnectionResultDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectorsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectorDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ConnectorsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Connector type name. */
        type: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConnectorDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ExpressionsController_functions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExpressionFunctionDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_list: {
    parameters: {
      query?: {
        /** @description 1-based page number. */
        page?: number;
        pageSize?: number;
        /** @description Only rules of this connected system. */
        connectedSystemId?: number;
        direction?: 'Import' | 'Export';
        /** @description Only rules of this metaverse object type. */
        metaverseObjectTypeId?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncRulePage'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateSyncRuleDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncRuleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncRuleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateSyncRuleDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncRuleDetailDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The request conflicts with the current state (CONFLICT). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_getScoping: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScopingCriteriaDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRulesController_setScoping: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetScopingCriteriaDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScopingCriteriaDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRuleMappingsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRuleMappingsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateMappingDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRuleMappingsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
        mappingId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRuleMappingsController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
        mappingId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateMappingDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  SyncRuleMappingsController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
        mappingId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MatchingRulesController_list: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MatchingRuleDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MatchingRulesController_create: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateMatchingRuleDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MatchingRuleDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MatchingRulesController_reorder: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MatchingRuleOrderDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MatchingRuleDto'][];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MatchingRulesController_update: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
        matchingRuleId: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateMatchingRuleDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MatchingRuleDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  MatchingRulesController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        syncRuleId: number;
        matchingRuleId: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  ExpressionsController_test: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TestExpressionDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TestExpressionResultDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  QueueProbesController_start: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Queued; poll GET until status is Processed. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueueProbeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is larger than the limit (PAYLOAD_TOO_LARGE). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The body is not JSON (BAD_REQUEST): send Content-Type application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  QueueProbesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueueProbeDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Authenticated, but the Administrator role is required (FORBIDDEN). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description The resource does not exist (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
  AuthController_userInfo: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserInfoDto'];
        };
      };
      /** @description Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Missing, invalid, expired or disabled credentials (UNAUTHORISED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Too many requests (RATE_LIMITED); retry after Retry-After seconds. */
      429: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description Unexpected error (INTERNAL_ERROR) with an errorId. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
      /** @description A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds. */
      503: {
        headers: {
          /** @description Seconds to wait before trying again. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBodyDto'];
        };
      };
    };
  };
}
