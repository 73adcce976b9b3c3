import type { Connector } from './connector.contract';

/** Every connector shipped with Meridian. */
export function builtInConnectors(): Connector[] {
  return [];
}
