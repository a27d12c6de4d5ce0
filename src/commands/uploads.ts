// Upload spots: mint (rolling-window and unclaimed-bytes caps), observed uploads, expiry.
import type { LedgerEvent } from '../events/ledger.js';
import { AuthenticationError, SpotsPerWindowExceeded, UnclaimedBytesExceeded, withRetryAfter } from './errors.js';
import { spotOf, type KeyState } from './state.js';

export interface SpotLimits {
  spotsPerWindow: number;
  windowSeconds: number;
  unclaimedBytesCap: number;
}

export type UploadCommand =
  | {
      type: 'MintSpot';
      handle: string;
      expiresAt: string;
      now: string;
      limits: SpotLimits;
      /** Sizes read from storage just now for live spots, so the byte cap sees uploads not yet recorded. */
      observed: Readonly<Record<string, number>>;
    }
  | { type: 'RecordUpload'; handle: string; size: number; now: string }
  | { type: 'ExpireSpot'; handle: string; now: string };

const isLive = (expiresAt: string, now: string) => Date.parse(expiresAt) > Date.parse(now);

/** Bytes sitting in live, unclaimed spots, counting fresh observations over recorded sizes. */
export function unclaimedBytes(state: KeyState, now: string, observed: Readonly<Record<string, number>> = {}): number {
  let total = 0;
  for (const [handle, spot] of state.spots.entries()) {
    if (isLive(spot.expiresAt, now)) total += observed[handle] ?? spot.size;
  }
  return total;
}

export function mintsInWindow(state: KeyState, now: string, windowSeconds: number): number {
  const since = Date.parse(now) - windowSeconds * 1000;
  return state.recentMints.filter((t) => t > since).length;
}

/**
 * The key's spot window now: mints left, and seconds until the next mint leaves the window (0 when
 * none is in it), as the RateLimit header reports them. `untilFree` is how long until a refused
 * key may mint again: enough mints must leave to get below the cap (the cap may have been lowered).
 */
export function spotWindow(state: KeyState, now: string, limits: Pick<SpotLimits, 'spotsPerWindow' | 'windowSeconds'>) {
  const t = Date.parse(now);
  const windowMs = limits.windowSeconds * 1000;
  const inWindow = state.recentMints.filter((m) => m > t - windowMs);
  const leaves = (m: number | undefined) => (m === undefined ? 0 : (m + windowMs - t) / 1000);
  const mustLeave = inWindow.length - limits.spotsPerWindow + 1;
  return {
    remaining: Math.max(0, limits.spotsPerWindow - inWindow.length),
    resetSeconds: Math.ceil(leaves(inWindow[0])),
    untilFree: limits.spotsPerWindow === 0 ? limits.windowSeconds : leaves(inWindow[Math.max(0, mustLeave - 1)]),
  };
}

/** Seconds until the earliest live spot holding unclaimed bytes expires (its bytes stop counting). */
function untilBytesFree(state: KeyState, now: string, observed: Readonly<Record<string, number>>): number {
  const expiries = state.spots.entries()
    .filter(([handle, spot]) => isLive(spot.expiresAt, now) && (observed[handle] ?? spot.size) > 0)
    .map(([, spot]) => Date.parse(spot.expiresAt));
  return expiries.length === 0 ? 1 : (Math.min(...expiries) - Date.parse(now)) / 1000;
}

export function decideUpload(command: UploadCommand, state: KeyState): LedgerEvent[] {
  const at = command.now;
  switch (command.type) {
    case 'MintSpot': {
      if (state.status !== 'active') throw new AuthenticationError();
      const { limits, observed } = command;
      if (mintsInWindow(state, at, limits.windowSeconds) >= limits.spotsPerWindow) {
        throw withRetryAfter(new SpotsPerWindowExceeded(), spotWindow(state, at, limits).untilFree);
      }
      if (unclaimedBytes(state, at, observed) > limits.unclaimedBytesCap) {
        throw withRetryAfter(new UnclaimedBytesExceeded(), untilBytesFree(state, at, observed));
      }
      const seen: LedgerEvent[] = Object.entries(observed)
        .filter(([handle, size]) => spotOf(state, handle) !== undefined && spotOf(state, handle)?.size !== size)
        .map(([handle, size]) => ({ type: 'SpotUploaded', data: { handle, size, at } }));
      return [...seen, { type: 'SpotMinted', data: { handle: command.handle, expiresAt: command.expiresAt, at } }];
    }
    case 'RecordUpload': {
      const spot = spotOf(state, command.handle);
      if (!spot || spot.size === command.size || !isLive(spot.expiresAt, at)) return [];
      return [{ type: 'SpotUploaded', data: { handle: command.handle, size: command.size, at } }];
    }
    case 'ExpireSpot': {
      const spot = spotOf(state, command.handle);
      if (!spot || isLive(spot.expiresAt, at)) return [];
      return [{ type: 'SpotExpired', data: { handle: command.handle, at } }];
    }
    default: {
      const exhaustive: never = command;
      return exhaustive;
    }
  }
}
