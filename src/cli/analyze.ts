// `npm run -s analyze -- VIDEO --exercise ID`: runs the engine on a local file and prints the
// result object (the same one a job returns) as JSON.
import '../runtime/require-node.js'; // first: stops at once on a Node too old for the SQLite addon
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createPoseEngine } from '../analysis/index.js';
import { catalog, findExercise } from '../analysis/catalog.js';
import { ProviderUnavailableError, VideoProcessingError } from '../analysis/engine.js';

const usage = 'usage: npm run -s analyze -- VIDEO --exercise ID';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { exercise: { type: 'string', short: 'e' } } });
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    return 2;
  }
  const [video] = parsed.positionals;
  const exercise = parsed.values.exercise;
  if (!video || !exercise) {
    console.error(usage);
    return 2;
  }
  if (!findExercise(exercise)) {
    console.error(`unknown exercise id "${exercise}"; known ids: ${catalog.map((c) => c.exercise_id).join(', ')}`);
    return 2;
  }
  const path = resolve(video);
  try {
    await access(path);
  } catch {
    console.error(`video file not found or not readable: ${path}`);
    return 2;
  }
  try {
    const result = await createPoseEngine().analyze({ videoPath: path, exerciseId: exercise });
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof VideoProcessingError) console.error(`the video could not be processed: ${e.message}`);
    else if (e instanceof ProviderUnavailableError) console.error(`the analysis provider is unavailable: ${e.message}`);
    else console.error(`analysis failed: ${(e as Error).stack ?? e}`);
    return 1;
  }
}

process.exitCode = await main();
