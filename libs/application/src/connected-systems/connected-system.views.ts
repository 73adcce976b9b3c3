import { isSelectionLocked } from '@meridian/domain';
import type { ConnectorCapabilities } from '@meridian/connectors';
import type {
  ConnectedSystemAttributeEntity,
  ConnectedSystemEntity,
  ConnectedSystemObjectTypeEntity,
  RunProfileEntity,
} from '@meridian/persistence';

export interface ConnectedSystemCounts {
  objectTypeCount: number;
  objectCount: number;
  runProfileCount: number;
}

/** Names of the secret settings that hold a value (the values themselves never leave the service). */
export function secretSettingNames(stored: string | null): string[] {
  if (!stored) return [];
  return Object.keys(JSON.parse(stored) as Record<string, string>).sort();
}

/** List item of a connected system. */
export function connectedSystemSummary(s: ConnectedSystemEntity, counts: ConnectedSystemCounts) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    connectorType: s.connectorType,
    created: s.created.toISOString(),
    lastUpdated: s.lastUpdated?.toISOString() ?? null,
    objectTypeCount: counts.objectTypeCount,
    objectCount: counts.objectCount,
    runProfileCount: counts.runProfileCount,
  };
}

/** A connected system: non-secret settings by name, and only the names of the secret settings that are set. */
export function connectedSystemDetail(
  s: ConnectedSystemEntity,
  counts: ConnectedSystemCounts,
  capabilities: ConnectorCapabilities | null,
  deletionActivityId: string | null,
) {
  return {
    ...connectedSystemSummary(s, counts),
    settings: { ...s.settings },
    secretSettingsSet: secretSettingNames(s.secretSettings),
    unresolvedReferenceHandling: s.unresolvedReferenceHandling,
    fullSyncRequired: s.fullSyncRequired,
    lastSchemaImport: s.lastSchemaImport?.toISOString() ?? null,
    capabilities,
    deletionActivityId,
  };
}

/** Attribute of spec 2.11 (+ presentInSchema). */
export function csAttributeView(a: ConnectedSystemAttributeEntity) {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    className: a.className,
    created: a.created.toISOString(),
    type: a.type,
    attributePlurality: a.plurality,
    selected: a.selected,
    isExternalId: a.isExternalId,
    isSecondaryExternalId: a.isSecondaryExternalId,
    selectionLocked: isSelectionLocked(a),
    writability: a.writability,
    presentInSchema: a.presentInSchema,
  };
}

/** Object type of spec 2.11 (+ presentInSchema). */
export function csObjectTypeView(t: ConnectedSystemObjectTypeEntity, attributes: ConnectedSystemAttributeEntity[]) {
  return {
    id: t.id,
    name: t.name,
    created: t.created.toISOString(),
    selected: t.selected,
    removeContributedAttributesOnObsoletion: t.removeContributedAttributesOnObsoletion,
    presentInSchema: t.presentInSchema,
    attributeCount: attributes.length,
    attributes: attributes.map(csAttributeView),
  };
}

export function runProfileView(p: RunProfileEntity) {
  return {
    id: p.id,
    connectedSystemId: p.connectedSystemId,
    name: p.name,
    runType: p.runType,
    pageSize: p.pageSize,
    filePath: p.filePath,
    created: p.created.toISOString(),
    lastUpdated: p.lastUpdated?.toISOString() ?? null,
  };
}

export type ConnectedSystemSummary = ReturnType<typeof connectedSystemSummary>;
export type ConnectedSystemDetail = ReturnType<typeof connectedSystemDetail>;
export type CsAttributeView = ReturnType<typeof csAttributeView>;
export type CsObjectTypeView = ReturnType<typeof csObjectTypeView>;
export type RunProfileView = ReturnType<typeof runProfileView>;
