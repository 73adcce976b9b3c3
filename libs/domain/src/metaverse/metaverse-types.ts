/** Metaverse attribute data types (DOMAIN.md §3, spec 2.11). */
export enum AttributeDataType {
  String = 'String',
  Text = 'Text',
  Integer = 'Integer',
  LongNumber = 'LongNumber',
  Decimal = 'Decimal',
  Boolean = 'Boolean',
  DateTime = 'DateTime',
  Guid = 'Guid',
  Binary = 'Binary',
  Reference = 'Reference',
}

export enum AttributePlurality {
  Single = 'Single',
  Multi = 'Multi',
}

export enum DeletionRule {
  Manual = 'Manual',
  WhenLastConnectorDisconnected = 'WhenLastConnectorDisconnected',
  WhenAuthoritativeSourceDisconnected = 'WhenAuthoritativeSourceDisconnected',
}

export enum MetaverseObjectOrigin {
  Projected = 'Projected',
  Internal = 'Internal',
}

export enum MetaverseObjectStatus {
  Normal = 'Normal',
  Obsolete = 'Obsolete',
}

export interface BuiltInAttribute {
  name: string;
  type: AttributeDataType;
  plurality: AttributePlurality;
}

export const BuiltInObjectTypes = { User: 'User', Group: 'Group' } as const;

export const BuiltInAttributeNames = {
  DisplayName: 'Display Name',
  AccountName: 'Account Name',
  SubjectIdentifier: 'Subject Identifier',
  Email: 'Email',
} as const;

const single = (name: string, type = AttributeDataType.String): BuiltInAttribute => ({ name, type, plurality: AttributePlurality.Single });
const multi = (name: string, type = AttributeDataType.String): BuiltInAttribute => ({ name, type, plurality: AttributePlurality.Multi });

/** The built-in `User` attributes (DOMAIN.md §3). */
export const BUILT_IN_USER_ATTRIBUTES: readonly BuiltInAttribute[] = [
  single('Account Name'),
  single('Common Name'),
  single('Description'),
  single('Display Name'),
  single('Distinguished Name'),
  single('Email'),
  multi('Emails'),
  single('Employee ID'),
  single('Employee Number', AttributeDataType.Integer),
  single('Employee Type'),
  single('Employee Start Date', AttributeDataType.DateTime),
  single('Employee End Date', AttributeDataType.DateTime),
  single('First Name'),
  single('Last Name'),
  single('Middle Name'),
  single('Nickname'),
  single('Job Title'),
  single('Department'),
  single('Company'),
  single('Office'),
  single('Manager', AttributeDataType.Reference),
  single('Mobile Number'),
  single('Telephone Number'),
  single('Country'),
  single('Locality'),
  single('Postal Code'),
  single('Street Address'),
  single('State or Province'),
  single('Preferred Language'),
  single('Pronouns'),
  single('Status'),
  single('Type'),
  single('Account Enabled', AttributeDataType.Boolean),
  single('Account Expires', AttributeDataType.DateTime),
  single('User Principal Name'),
  single('Subject Identifier'),
  single('Object Identifier'),
  single('objectGUID', AttributeDataType.Guid),
  multi('Proxy Addresses'),
];

/** The built-in `Group` attributes (DOMAIN.md §3). */
export const BUILT_IN_GROUP_ATTRIBUTES: readonly BuiltInAttribute[] = [
  single('Account Name'),
  single('Common Name'),
  single('Description'),
  single('Display Name'),
  single('Distinguished Name'),
  single('Email'),
  single('Group Type'),
  single('Group Scope'),
  single('Managed By', AttributeDataType.Reference),
  multi('Owners', AttributeDataType.Reference),
  multi('Static Members', AttributeDataType.Reference),
];

/** The built-in object types an attribute belongs to from the seed (links that cannot be removed). */
export function builtInObjectTypesOf(attributeName: string): string[] {
  const lower = attributeName.toLowerCase();
  const types: string[] = [];
  if (BUILT_IN_USER_ATTRIBUTES.some((a) => a.name.toLowerCase() === lower)) types.push(BuiltInObjectTypes.User);
  if (BUILT_IN_GROUP_ATTRIBUTES.some((a) => a.name.toLowerCase() === lower)) types.push(BuiltInObjectTypes.Group);
  return types;
}
