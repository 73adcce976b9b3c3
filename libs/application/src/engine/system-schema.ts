import { AttributePlurality } from '@meridian/domain';
import { ConnectorAttributeType, SelectedSchema } from '@meridian/connectors';
import { ConnectedSystemAttributeEntity, ConnectedSystemEntity, ConnectedSystemObjectTypeEntity } from '@meridian/persistence';
import { EntityManager } from 'typeorm';

export interface SchemaAttribute {
  id: number;
  objectTypeId: number;
  name: string;
  type: ConnectorAttributeType;
  plurality: AttributePlurality;
  isExternalId: boolean;
  isSecondaryExternalId: boolean;
}

export interface SchemaObjectType {
  id: number;
  name: string;
  removeContributedAttributesOnObsoletion: boolean;
  externalId: SchemaAttribute | null;
  secondaryExternalId: SchemaAttribute | null;
  /** Selected attributes only. */
  attributes: SchemaAttribute[];
  /** Lower-cased attribute name → attribute (resolved once per run, not per value). */
  byName: Map<string, SchemaAttribute>;
}

/**
 * The selected schema of a connected system as a run uses it: object types and attributes with their
 * ids, names resolved once, external IDs marked.
 */
export class SystemSchema {
  readonly objectTypes: SchemaObjectType[];
  private readonly typesByName = new Map<string, SchemaObjectType>();
  private readonly typesById = new Map<number, SchemaObjectType>();
  private readonly attributesById = new Map<number, SchemaAttribute>();

  constructor(
    readonly system: ConnectedSystemEntity,
    objectTypes: SchemaObjectType[],
  ) {
    this.objectTypes = objectTypes;
    for (const t of objectTypes) {
      this.typesByName.set(t.name.toLowerCase(), t);
      this.typesById.set(t.id, t);
      for (const a of t.attributes) this.attributesById.set(a.id, a);
    }
  }

  static async load(m: EntityManager, system: ConnectedSystemEntity): Promise<SystemSchema> {
    const types = await m
      .getRepository(ConnectedSystemObjectTypeEntity)
      .find({ where: { connectedSystemId: system.id, selected: true }, order: { id: 'ASC' } });
    const attributes = types.length
      ? await m
          .getRepository(ConnectedSystemAttributeEntity)
          .createQueryBuilder('a')
          .where('a.objectTypeId IN (:...ids)', { ids: types.map((t) => t.id) })
          .andWhere('a.selected')
          .orderBy('a.id')
          .getMany()
      : [];
    return new SystemSchema(
      system,
      types.map((t) => {
        const own = attributes
          .filter((a) => a.objectTypeId === t.id)
          .map((a): SchemaAttribute => ({
            id: a.id,
            objectTypeId: t.id,
            name: a.name,
            type: a.type as ConnectorAttributeType,
            plurality: a.plurality as AttributePlurality,
            isExternalId: a.isExternalId,
            isSecondaryExternalId: a.isSecondaryExternalId,
          }));
        return {
          id: t.id,
          name: t.name,
          removeContributedAttributesOnObsoletion: t.removeContributedAttributesOnObsoletion,
          externalId: own.find((a) => a.isExternalId) ?? null,
          secondaryExternalId: own.find((a) => a.isSecondaryExternalId) ?? null,
          attributes: own,
          byName: new Map(own.map((a) => [a.name.toLowerCase(), a])),
        };
      }),
    );
  }

  typeByName(name: string): SchemaObjectType | undefined {
    return this.typesByName.get(name.toLowerCase());
  }

  typeById(id: number): SchemaObjectType | undefined {
    return this.typesById.get(id);
  }

  attribute(id: number): SchemaAttribute | undefined {
    return this.attributesById.get(id);
  }

  /** The schema as connectors receive it (ConnectorContext.schema). */
  toSelectedSchema(): SelectedSchema {
    return {
      objectTypes: this.objectTypes.map((t) => ({
        name: t.name,
        externalIdAttribute: t.externalId?.name ?? null,
        secondaryExternalIdAttribute: t.secondaryExternalId?.name ?? null,
        attributes: t.attributes.map((a) => ({ name: a.name, type: a.type, plurality: a.plurality })),
      })),
    };
  }
}
