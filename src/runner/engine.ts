// The engine the runner uses by default: the real pose engine from src/analysis.
import type { AnalysisEngine } from '../analysis/engine.js';
import { ProviderUnavailableError } from '../analysis/engine.js';

export async function defaultEngine(): Promise<AnalysisEngine> {
  const modulePath = '../analysis/index.js';
  try {
    const mod = (await import(modulePath)) as { createPoseEngine(): AnalysisEngine };
    return mod.createPoseEngine();
  } catch (err) {
    const reason = `analysis engine unavailable: ${(err as Error).message}`;
    return {
      version: 'unavailable',
      analyze: async () => {
        throw new ProviderUnavailableError(reason);
      },
    };
  }
}
