import { parseAttributeSelection } from '@meridian/domain';
import { ReadBy } from '../../../http/field.validation';

/**
 * The `attributes` query parameter (names comma-separated, or *) read by the domain's parser into an
 * AttributeSelection; a list the parser refuses is reported with its reason, anything but text as `typeMessage`.
 * Whether the named attributes exist is for the schema to say.
 */
export function IsAttributeSelection(typeMessage: string): PropertyDecorator {
  return ReadBy((raw) => {
    const selection = parseAttributeSelection(raw);
    return 'error' in selection ? selection : { value: selection };
  }, typeMessage);
}
