import { RunType } from '@meridian/domain';
import { ConnectedSystemEntity } from '@meridian/persistence';
import { RunContext } from './run-context';

/** A runner of one kind of run (import, synchronisation, export). Returns the activity's closing message. */
export interface EngineRunner {
  readonly runTypes: readonly RunType[];
  run(ctx: RunContext, system: ConnectedSystemEntity): Promise<string>;
}

export const ENGINE_RUNNERS = Symbol('ENGINE_RUNNERS');
