// Where the shared, hand-labelled clips live: ../shared/videos beside the repository, or wherever
// SHARED_VIDEOS_DIR points (a clone placed elsewhere). The eval, the benches and the tests that
// need real video all read it from here. Kept apart from eval.ts so that importing it loads no
// engine.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const videosDir = process.env.SHARED_VIDEOS_DIR
  ? resolve(process.env.SHARED_VIDEOS_DIR)
  : resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'videos');

/**
 * Clips whose form other people judged good or bad (labels.json there names the source and, for a
 * few, the fault): ../shared/form-videos beside the repository, or SHARED_FORM_VIDEOS_DIR.
 */
export const formVideosDir = process.env.SHARED_FORM_VIDEOS_DIR
  ? resolve(process.env.SHARED_FORM_VIDEOS_DIR)
  : resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'form-videos');
