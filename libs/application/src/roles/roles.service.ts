import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, ADMINISTRATOR_ROLE, BuiltInObjectTypes, DomainError } from '@meridian/domain';
import { RoleEntity } from '@meridian/persistence';
import { DataSource } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';

/** Roles and their members (metaverse Users). The last Administrator member cannot be removed. */
@Injectable()
export class RolesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async list() {
    const rows: Array<{ id: number; name: string; description: string | null; is_built_in: boolean; member_count: number }> =
      await this.ds.query(
        `SELECT r.id, r.name, r.description, r.is_built_in, (SELECT count(*)::int FROM role_member m WHERE m.role_id = r.id) AS member_count FROM role r ORDER BY r.name`,
      );
    return rows.map((r) => ({ id: r.id, name: r.name, description: r.description, isBuiltIn: r.is_built_in, memberCount: r.member_count }));
  }

  async get(id: number) {
    const role = (await this.list()).find((r) => r.id === id);
    if (!role) throw DomainError.notFound('Role', id);
    return role;
  }

  async members(id: number) {
    await this.get(id);
    const rows: Array<{ id: string; display_name: string | null; created: Date }> = await this.ds.query(
      `SELECT o.id, o.display_name, m.created FROM role_member m JOIN metaverse_object o ON o.id = m.metaverse_object_id WHERE m.role_id = $1 ORDER BY o.display_name NULLS LAST, o.id`,
      [id],
    );
    return rows.map((r) => ({ metaverseObjectId: r.id, displayName: r.display_name, added: r.created.toISOString() }));
  }

  async addMember(id: number, metaverseObjectId: string, initiator: Initiator) {
    const role = await this.get(id);
    await this.ds.transaction(async (m) => {
      const [object] = await m.query(
        `SELECT o.id, o.display_name FROM metaverse_object o JOIN metaverse_object_type t ON t.id = o.type_id WHERE o.id = $1 AND t.name = $2`,
        [metaverseObjectId, BuiltInObjectTypes.User],
      );
      if (!object) throw DomainError.validation('metaverseObjectId', `Metaverse object ${metaverseObjectId} is not a User.`);
      const inserted = await m.query(
        `INSERT INTO role_member (role_id, metaverse_object_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING role_id`,
        [id, metaverseObjectId],
      );
      if (inserted.length) {
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.Role,
            operation: ActivityOperationType.Update,
            targetId: id,
            targetName: role.name,
            message: `Added ${object.display_name ?? metaverseObjectId} to ${role.name}.`,
            details: { added: metaverseObjectId },
          },
          m,
        );
      }
    });
    return this.members(id);
  }

  async removeMember(id: number, metaverseObjectId: string, initiator: Initiator): Promise<void> {
    const role = await this.get(id);
    await this.ds.transaction(async (m) => {
      // Lock the role row so two concurrent removals cannot both see "one other member left".
      await m.getRepository(RoleEntity).createQueryBuilder('r').setLock('pessimistic_write').where('r.id = :id', { id }).getOne();
      const [{ count }] = await m.query(`SELECT count(*)::int AS count FROM role_member WHERE role_id = $1`, [id]);
      const [, removed] = await m.query(`DELETE FROM role_member WHERE role_id = $1 AND metaverse_object_id = $2`, [id, metaverseObjectId]);
      if (!removed) {
        throw DomainError.notFound(`Member of role ${role.name}`, metaverseObjectId);
      }
      if (role.name === ADMINISTRATOR_ROLE && count <= 1) {
        throw DomainError.conflict('The last member of the Administrator role cannot be removed; add another administrator first.');
      }
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.Role,
          operation: ActivityOperationType.Update,
          targetId: id,
          targetName: role.name,
          message: `Removed ${metaverseObjectId} from ${role.name}.`,
          details: { removed: metaverseObjectId },
        },
        m,
      );
    });
  }
}
