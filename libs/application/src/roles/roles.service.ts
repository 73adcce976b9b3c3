import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, ADMINISTRATOR_ROLE, DomainError } from '@meridian/domain';
import { RoleEntity, RoleStore } from '@meridian/persistence';
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
    return new RoleStore(this.ds).list();
  }

  async get(id: number) {
    const role = (await this.list()).find((r) => r.id === id);
    if (!role) throw DomainError.notFound('Role', id);
    return role;
  }

  async members(id: number) {
    await this.get(id);
    const rows = await new RoleStore(this.ds).members(id);
    return rows.map((r) => ({ metaverseObjectId: r.metaverseObjectId, displayName: r.displayName, added: r.added.toISOString() }));
  }

  async addMember(id: number, metaverseObjectId: string, initiator: Initiator) {
    const role = await this.get(id);
    await this.ds.transaction(async (m) => {
      const roles = new RoleStore(m);
      const user = await roles.findUser(metaverseObjectId);
      if (!user) throw DomainError.validation('metaverseObjectId', `Metaverse object ${metaverseObjectId} is not a User.`);
      if (await roles.addMember(id, metaverseObjectId)) {
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.Role,
            operation: ActivityOperationType.Update,
            targetId: id,
            targetName: role.name,
            message: `Added ${user.displayName ?? metaverseObjectId} to ${role.name}.`,
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
      const roles = new RoleStore(m);
      const count = await roles.memberCount(id);
      if (!(await roles.removeMember(id, metaverseObjectId))) {
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
