import type { CsoChangeType, MvoChangeType, StoredAttributeDelta } from '@meridian/domain';
import { uuidV7 } from '../bulk/uuid-v7';
import type { SqlSession } from './bulk-session';

/** Who and what made the changes of a run: written on every change record the run writes. */
export interface ChangeOrigin {
  activityId: string | null;
  runProfileId: number | null;
  /** InitiatedByType. */
  initiatedByType: string;
  initiatedById: string | null;
  initiatedByName: string | null;
}

/** One connector space object change, as a runner records it. */
export interface CsoChangeRow {
  connectedSystemId: number;
  connectedSystemObjectId: string;
  objectTypeId: number | null;
  externalId: string | null;
  displayName: string | null;
  changeType: CsoChangeType;
  attributeChanges: StoredAttributeDelta[] | null;
  /** Deleted only: names kept for the deleted-objects list. */
  objectTypeName?: string | null;
  connectedSystemName?: string | null;
}

/** One metaverse object change, as a runner records it. */
export interface MvoChangeRow {
  metaverseObjectId: string;
  objectTypeId: number;
  displayName: string | null;
  changeType: MvoChangeType;
  attributeChanges: StoredAttributeDelta[] | null;
  connectedSystemId: number | null;
  connectedSystemObjectId: string | null;
  /** Deleted only. */
  objectTypeName?: string | null;
}

/** The origin columns, in the order ChangeRecordStore writes them (for set-based INSERT … SELECT writers too). */
export const CHANGE_ORIGIN_COLUMNS = [
  'activity_id',
  'run_profile_id',
  'initiated_by_type',
  'initiated_by_id',
  'initiated_by_name',
] as const;

export const CSO_CHANGE_COLUMNS = [
  'id',
  'change_time',
  'connected_system_id',
  'connected_system_object_id',
  'object_type_id',
  'external_id',
  'display_name',
  'change_type',
  'attribute_changes',
  ...CHANGE_ORIGIN_COLUMNS,
  'object_type_name',
  'connected_system_name',
] as const;

export const MVO_CHANGE_COLUMNS = [
  'id',
  'change_time',
  'metaverse_object_id',
  'object_type_id',
  'display_name',
  'change_type',
  'attribute_changes',
  'connected_system_id',
  'connected_system_object_id',
  ...CHANGE_ORIGIN_COLUMNS,
  'object_type_name',
] as const;

const originValues = (o: ChangeOrigin) => [o.activityId, o.runProfileId, o.initiatedByType, o.initiatedById, o.initiatedByName];

/**
 * Change records (spec 2.13), written in bulk: one COPY per call, whatever the number of records, on the
 * runner's session (inside the page's transaction when there is one, so a page and its history commit
 * together). Ids are UUID v7 of the change time, so records are appended in time order.
 */
export class ChangeRecordStore {
  constructor(private readonly s: SqlSession) {}

  async insertCsoChanges(origin: ChangeOrigin, rows: readonly CsoChangeRow[], at = new Date()): Promise<void> {
    if (!rows.length) return;
    const ms = at.getTime();
    const origins = originValues(origin);
    await this.s.copy(
      'connected_system_object_change',
      CSO_CHANGE_COLUMNS,
      rows.map((r) => [
        uuidV7(ms),
        at,
        r.connectedSystemId,
        r.connectedSystemObjectId,
        r.objectTypeId,
        r.externalId,
        r.displayName,
        r.changeType,
        r.attributeChanges,
        ...origins,
        r.objectTypeName ?? null,
        r.connectedSystemName ?? null,
      ]),
    );
  }

  async insertMvoChanges(origin: ChangeOrigin, rows: readonly MvoChangeRow[], at = new Date()): Promise<void> {
    if (!rows.length) return;
    const ms = at.getTime();
    const origins = originValues(origin);
    await this.s.copy(
      'metaverse_object_change',
      MVO_CHANGE_COLUMNS,
      rows.map((r) => [
        uuidV7(ms),
        at,
        r.metaverseObjectId,
        r.objectTypeId,
        r.displayName,
        r.changeType,
        r.attributeChanges,
        r.connectedSystemId,
        r.connectedSystemObjectId,
        ...origins,
        r.objectTypeName ?? null,
      ]),
    );
  }
}
