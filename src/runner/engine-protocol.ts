// Messages between the engine host (API or worker process) and the engine process.
import type { AnalysisInput, AnalysisOutput } from '../analysis/engine.js';

export interface EngineStats {
  /** Peak resident memory of the engine process so far, MB. */
  peakRssMb: number;
  /** Peak resident memory of the last decoder process it ran, MB. */
  decoderPeakRssMb: number;
}

export type HostMessage =
  | { type: 'analyze'; id: number; input: AnalysisInput }
  | { type: 'abort'; id: number };

export type ChildMessage =
  | { type: 'ready'; version: string }
  | { type: 'done'; id: number; out: AnalysisOutput; stats: EngineStats }
  | { type: 'failed'; id: number; error: { name: string; message: string }; stats: EngineStats };
