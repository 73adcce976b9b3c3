import { BuiltInObjectTypes } from '@meridian/domain';
import { affectedRows, SqlRunner, WriteResult } from '../sql/sql-runner';

export interface RoleRow {
  id: number;
  name: string;
  description: string | null;
  isBuiltIn: boolean;
  memberCount: number;
}

export interface RoleMemberRow {
  metaverseObjectId: string;
  displayName: string | null;
  added: Date;
}

/** Roles and their members (metaverse Users). */
export class RoleStore {
  constructor(private readonly db: SqlRunner) {}

  /** Every role with its member count, by name. */
  async list(): Promise<RoleRow[]> {
    return this.db.query<RoleRow[]>(
      `SELECT r.id, r.name, r.description, r.is_built_in AS "isBuiltIn",
              (SELECT count(*)::int FROM role_member m WHERE m.role_id = r.id) AS "memberCount"
         FROM role r ORDER BY r.name`,
    );
  }

  /** Members of a role, by display name. */
  async members(roleId: number): Promise<RoleMemberRow[]> {
    return this.db.query<RoleMemberRow[]>(
      `SELECT o.id AS "metaverseObjectId", o.display_name AS "displayName", m.created AS added
         FROM role_member m JOIN metaverse_object o ON o.id = m.metaverse_object_id
        WHERE m.role_id = $1 ORDER BY o.display_name NULLS LAST, o.id`,
      [roleId],
    );
  }

  /** The metaverse User with this id (its display name), or null when there is none or it is not a User. */
  async findUser(metaverseObjectId: string): Promise<{ id: string; displayName: string | null } | null> {
    const [user] = await this.db.query<Array<{ id: string; displayName: string | null }>>(
      `SELECT o.id, o.display_name AS "displayName" FROM metaverse_object o JOIN metaverse_object_type t ON t.id = o.type_id
        WHERE o.id = $1 AND t.name = '${BuiltInObjectTypes.User}'`,
      [metaverseObjectId],
    );
    return user ?? null;
  }

  /** Adds a member; answers false when it was one already. */
  async addMember(roleId: number, metaverseObjectId: string): Promise<boolean> {
    const inserted = await this.db.query<unknown[]>(
      `INSERT INTO role_member (role_id, metaverse_object_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING role_id`,
      [roleId, metaverseObjectId],
    );
    return inserted.length > 0;
  }

  /** Removes a member; answers false when it was not one. */
  async removeMember(roleId: number, metaverseObjectId: string): Promise<boolean> {
    const result = await this.db.query<WriteResult>(`DELETE FROM role_member WHERE role_id = $1 AND metaverse_object_id = $2`, [
      roleId,
      metaverseObjectId,
    ]);
    return affectedRows(result) > 0;
  }

  /** How many members a role has. */
  async memberCount(roleId: number): Promise<number> {
    const [{ count }] = await this.db.query<Array<{ count: number }>>(`SELECT count(*)::int AS count FROM role_member WHERE role_id = $1`, [
      roleId,
    ]);
    return count;
  }

  /**
   * Locks the named role's row for this transaction: whoever changes its membership in a way that could
   * leave it empty takes this lock first.
   */
  async lockByName(name: string): Promise<void> {
    await this.db.query(`SELECT id FROM role WHERE name = $1 FOR UPDATE`, [name]);
  }

  /** How many members the named role has, and whether `metaverseObjectId` is one of them. */
  async membershipOf(name: string, metaverseObjectId: string): Promise<{ memberCount: number; isMember: boolean }> {
    const [row] = await this.db.query<Array<{ count: number; is_member: boolean | null }>>(
      `SELECT count(*)::int AS count, bool_or(m.metaverse_object_id = $2) AS is_member
         FROM role_member m JOIN role r ON r.id = m.role_id WHERE r.name = $1`,
      [name, metaverseObjectId],
    );
    return { memberCount: row.count, isMember: !!row.is_member };
  }

  /** Names of the roles a metaverse object is a member of. */
  async roleNamesOf(metaverseObjectId: string): Promise<string[]> {
    const rows = await this.db.query<Array<{ name: string }>>(
      `SELECT r.name FROM role_member m JOIN role r ON r.id = m.role_id WHERE m.metaverse_object_id = $1 ORDER BY r.name`,
      [metaverseObjectId],
    );
    return rows.map((r) => r.name);
  }
}
