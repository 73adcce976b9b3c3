import { ArgumentMetadata } from '@nestjs/common';
import { DomainError } from '@meridian/domain';
import { createValidationPipe } from '@meridian/platform';
import { CreateMetaverseObjectDto, MetaverseObjectListQueryDto } from '../src/modules/metaverse/dto/metaverse-object.dto';
import {
  CreateMetaverseAttributeDto,
  CreateMetaverseObjectTypeDto,
  UpdateMetaverseAttributeDto,
  UpdateMetaverseObjectTypeDto,
} from '../src/modules/metaverse/dto/metaverse-schema.dto';
import { PendingDeletionListQueryDto } from '../src/modules/metaverse/dto/pending-deletion.dto';

const pipe = createValidationPipe();

/** The field → messages a body or query is refused with, or the validated value. */
async function validate(metatype: ArgumentMetadata['metatype'], value: object, type: 'body' | 'query' = 'body') {
  try {
    return { value: await pipe.transform(value, { type, metatype }) };
  } catch (e) {
    if (e instanceof DomainError && e.validationErrors) return { errors: e.validationErrors };
    throw e;
  }
}

describe('metaverse request validation (one message per problem, as the services gave them)', () => {
  it.each<[string, ArgumentMetadata['metatype'], object, Record<string, string[]>]>([
    ['a blank attribute name', CreateMetaverseAttributeDto, { name: ' ', type: 'String' }, { name: ['Attribute name is required.'] }],
    ['an attribute name that is not text', CreateMetaverseAttributeDto, { name: 7, type: 'String' }, { name: ['name must be text.'] }],
    ['a null name in an update', UpdateMetaverseAttributeDto, { name: null }, { name: ['Attribute name is required.'] }],
    ['a name with a comma', CreateMetaverseObjectTypeDto, { name: 'A,B' }, { name: ['Object type name must not contain commas.'] }],
    [
      'a description over 1000 characters',
      UpdateMetaverseObjectTypeDto,
      { description: 'd'.repeat(1001) },
      { description: ['description must be at most 1000 characters.'] },
    ],
    [
      'a description that is not text',
      UpdateMetaverseAttributeDto,
      { description: 5 },
      { description: ['description must be text or null.'] },
    ],
    [
      'null attribute ids',
      UpdateMetaverseObjectTypeDto,
      { attributeIds: null },
      { attributeIds: ['attributeIds must be an array of ids (positive integers).'] },
    ],
    [
      'attribute id 0',
      CreateMetaverseObjectTypeDto,
      { name: 'Printer', attributeIds: [0] },
      {
        attributeIds: ['attributeIds must be an array of ids (positive integers).'],
      },
    ],
    [
      'object type ids that are text',
      UpdateMetaverseAttributeDto,
      { objectTypeIds: ['1'] },
      { objectTypeIds: ['objectTypeIds must hold whole numbers.'] },
    ],
    [
      'a null type in an update',
      UpdateMetaverseAttributeDto,
      { type: null },
      {
        type: ['type must be String, Text, Integer, LongNumber, Decimal, Boolean, DateTime, Guid, Binary or Reference.'],
      },
    ],
    [
      'a null plurality',
      CreateMetaverseAttributeDto,
      { name: 'Badge', type: 'String', plurality: null },
      {
        plurality: ['plurality must be Single or Multi.'],
      },
    ],
    ['a null isIndexed', UpdateMetaverseAttributeDto, { isIndexed: null }, { isIndexed: ['isIndexed must be true or false.'] }],
    [
      'a deletion rule that is not text',
      UpdateMetaverseObjectTypeDto,
      { deletionRule: 1 },
      { deletionRule: ['deletionRule must be text.'] },
    ],
    [
      'a grace period with fractions of a second',
      UpdateMetaverseObjectTypeDto,
      { deletionGracePeriod: '00:00:01.5' },
      {
        deletionGracePeriod: ['deletionGracePeriod must be a whole number of seconds.'],
      },
    ],
    [
      'trigger system id 0',
      UpdateMetaverseObjectTypeDto,
      { deletionTriggerConnectedSystemIds: [0] },
      {
        deletionTriggerConnectedSystemIds: [
          'deletionTriggerConnectedSystemIds must be an array of connected system ids (positive integers).',
        ],
      },
    ],
    [
      'a blank objectType',
      CreateMetaverseObjectDto,
      { objectType: ' ', attributes: {} },
      { objectType: ['objectType must be a type name.'] },
    ],
    [
      'an objectTypeId past the integer range',
      CreateMetaverseObjectDto,
      { objectTypeId: 2_147_483_648, attributes: {} },
      {
        objectTypeId: ['objectTypeId must be a positive whole number.'],
      },
    ],
    [
      'attributes as a list',
      CreateMetaverseObjectDto,
      { objectType: 'User', attributes: [] },
      {
        attributes: ['attributes must be an object of attribute name → value.'],
      },
    ],
  ])('refuses %s', async (_label, metatype, body, errors) => {
    expect(await validate(metatype, body)).toEqual({ errors });
  });

  it('reads deletion fields with the domain parsers: rule and mode in any case, the grace period in seconds, null trigger ids', async () => {
    const { value } = await validate(UpdateMetaverseObjectTypeDto, {
      deletionRule: ' manual ',
      deletionTriggerMode: 'all',
      deletionGracePeriod: '1.00:00:00',
      deletionTriggerConnectedSystemIds: null,
    });
    expect(value).toEqual({
      deletionRule: 'Manual',
      deletionTriggerMode: 'All',
      deletionGracePeriod: 86_400,
      deletionTriggerConnectedSystemIds: null,
    });
    expect((await validate(UpdateMetaverseObjectTypeDto, { deletionGracePeriod: 0 })).value).toEqual({ deletionGracePeriod: null });
  });

  it('reads the attributes selection and checks query numbers', async () => {
    expect((await validate(MetaverseObjectListQueryDto, { attributes: 'Email, email,Department' }, 'query')).value).toEqual({
      attributes: { kind: 'named', names: ['Email', 'Department'] },
    });
    expect(await validate(MetaverseObjectListQueryDto, { attributes: '*,Email', filterAttributeValue: 'x'.repeat(4001) }, 'query')).toEqual(
      {
        errors: {
          attributes: ['attributes: * means every attribute and cannot be combined with names.'],
          filterAttributeValue: ['filterAttributeValue must be at most 4000 characters.'],
        },
      },
    );
    expect(await validate(PendingDeletionListQueryDto, { objectTypeId: '2147483648' }, 'query')).toEqual({
      errors: { objectTypeId: ['objectTypeId must be a positive whole number.'] },
    });
  });
});
