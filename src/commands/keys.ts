// Operator commands on a key: issue, suspend, reinstate, revoke, set the analysis limit.
import type { LedgerEvent } from '../events/ledger.js';
import { OperatorError } from './errors.js';
import type { KeyState } from './state.js';

export type KeyCommand =
  | { type: 'IssueKey'; keyId: string; partnerId: string; partnerName: string; keyHash: string; limit: number | null; now: string }
  | { type: 'SuspendKey'; keyId: string; now: string }
  | { type: 'ReinstateKey'; keyId: string; now: string }
  | { type: 'RevokeKey'; keyId: string; now: string }
  | { type: 'SetLimit'; keyId: string; limit: number | null; now: string };

export function decideKey(command: KeyCommand, state: KeyState): LedgerEvent[] {
  const { keyId, now: at } = command;
  if (command.type === 'IssueKey') {
    if (state.status !== 'unknown') throw new OperatorError(`key ${keyId} already exists`);
    const { partnerId, partnerName, keyHash, limit } = command;
    return [{ type: 'KeyIssued', data: { keyId, partnerId, partnerName, keyHash, limit, at } }];
  }
  if (state.status === 'unknown') throw new OperatorError(`no key ${keyId}`);
  switch (command.type) {
    case 'SuspendKey':
      if (state.status === 'revoked') throw new OperatorError(`key ${keyId} is revoked`);
      return state.status === 'suspended' ? [] : [{ type: 'KeySuspended', data: { keyId, at } }];
    case 'ReinstateKey':
      if (state.status === 'revoked') throw new OperatorError(`key ${keyId} is revoked; revocation is final`);
      return state.status === 'active' ? [] : [{ type: 'KeyReinstated', data: { keyId, at } }];
    case 'RevokeKey':
      return state.status === 'revoked' ? [] : [{ type: 'KeyRevoked', data: { keyId, at } }];
    case 'SetLimit':
      return state.limit === command.limit ? [] : [{ type: 'LimitSet', data: { keyId, limit: command.limit, at } }];
    default: {
      const exhaustive: never = command;
      return exhaustive;
    }
  }
}
