// Old events are never rewritten: they are lifted to the current shape as they are read.
// Each upcaster takes an event of version v and returns it at version v + 1.
import { CURRENT_SCHEMA_VERSION, retryableFailure } from './ledger.js';

type Raw = { type: string; data: Record<string, unknown>; schemaVersion: number };
type Upcaster = (event: Raw) => Raw;

const upcasters: Record<number, Upcaster> = {
  // v2: JobFailed says whether the failure was transient (an auditor settling a disputed unit needs
  // it). v1 events carried only the error code, which is exactly what the rule reads.
  1: (e) => ({
    ...e,
    schemaVersion: 2,
    data: e.type === 'JobFailed' ? { ...e.data, retryable: retryableFailure(String(e.data.errorCode)) } : e.data,
  }),
};

export function upcast(event: Raw): Raw {
  let current = event;
  while (current.schemaVersion < CURRENT_SCHEMA_VERSION) {
    const step = upcasters[current.schemaVersion];
    if (!step) throw new Error(`no upcaster from schema version ${current.schemaVersion} of ${current.type}`);
    current = step(current);
  }
  return current;
}
