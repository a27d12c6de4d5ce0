// One video's pose stream: detect the person, then track them with the landmark model's own ROI
// (MediaPipe's pose pipeline), re-detecting only when needed: the pose presence drops, the
// landmarks jump further than a body moves in one frame, or the shot changes (a hard cut). A cut
// is flagged on the frame so counting can split segments there instead of joining two shots.
import type { Frame } from '../decode.js';
import { KP, KP_COUNT, type Keypoint, type PoseFrame } from '../pose.js';
import { createCutDetector } from './cuts.js';
import { DETECTOR_RANGE, DETECTOR_SIZE, decodeDetections, detectionRoi, pickProminent } from './detector.js';
import { decodeLandmarks, LANDMARK_RANGE, LANDMARK_SIZE, type Landmarks } from './landmarks.js';
import type { PoseModels } from './models.js';
import { fallbackRois, fullFrameRoi, warpRoi, type Roi } from './roi.js';

/** MediaPipe's pose-presence threshold for keeping a tracked ROI. */
const MIN_PRESENCE = 0.5;
/** Landmark passes on a fresh detection before the frame counts as having no one. */
const REFINE_TRIES = 3;
/** Torso-centre move in one frame, in torso lengths, beyond which tracking is not trusted. */
const MAX_JUMP = 1.2;
/** Torso length change factor in one frame beyond which tracking is not trusted. */
const MAX_SCALE_CHANGE = 1.8;

/**
 * A fallback read is kept only when FALLBACK_PASSES passes in a row, each on the ROI the last one
 * gave, find a pose and put the body's joints (shoulders, elbows, wrists, hips) in the same place:
 * their median move from one pass to the next at most FALLBACK_AGREEMENT torso sizes. A person
 * reads the same from each ROI (0.05-0.26 on the head-out-of-frame close-up, most under 0.15);
 * the landmark model reading a person into a dumbbell rack moved 0.24-12.
 */
const FALLBACK_PASSES = 3;
/** Frames with no one before the fallback is tried (see its use). */
const FALLBACK_AFTER = 1;
const FALLBACK_AGREEMENT = 0.2;
/**
 * ... and only a body this large (torso size over the frame's long side): a close-up, which is what
 * the detector misses (0.17-0.28 on the close-up); clutter read as people was mostly under 0.1.
 */
const FALLBACK_MIN_TORSO = 0.15;
const BODY = [KP.leftShoulder, KP.rightShoulder, KP.leftElbow, KP.rightElbow, KP.leftWrist, KP.rightWrist, KP.leftHip, KP.rightHip];

/** With no one in the picture for this many frames, the detector runs only every DETECT_EVERY frames. */
const LOST_GRACE = 5;
const DETECT_EVERY = 3;

/** Where the time goes, summed over a video (milliseconds). */
export interface PoseTimings { frames: number; warpMs: number; detectorMs: number; landmarkMs: number; detections: number; landmarkRuns: number; cuts: number }

/**
 * Torso centre and size from whichever shoulders and hips are seen (one side in a side view). The
 * size is the torso's length or its width, whichever is larger: seen head-on in a push-up the
 * torso is foreshortened to almost nothing, and a jump measured in such lengths rejected the
 * right person (who was then lost for half a second at the top of every rep).
 */
function torso(kps: readonly Keypoint[]): { x: number; y: number; len: number } | null {
  const seen = (a: Keypoint, b: Keypoint) => [a, b].filter((p) => p.score >= 0.3);
  const mid = (ps: Keypoint[]) => ps.length ? { x: ps.reduce((s, p) => s + p.x, 0) / ps.length, y: ps.reduce((s, p) => s + p.y, 0) / ps.length } : null;
  const width = (ps: Keypoint[]) => (ps.length === 2 ? Math.hypot(ps[0]!.x - ps[1]!.x, ps[0]!.y - ps[1]!.y) : 0);
  const shs = seen(kps[KP.leftShoulder]!, kps[KP.rightShoulder]!), hips = seen(kps[KP.leftHip]!, kps[KP.rightHip]!);
  const sh = mid(shs), hip = mid(hips);
  if (!sh || !hip) return null;
  const len = Math.max(1, Math.hypot(sh.x - hip.x, sh.y - hip.y), width(shs), width(hips));
  return { x: (sh.x + hip.x) / 2, y: (sh.y + hip.y) / 2, len };
}

/** True when `next` cannot be the same body as `prev` one frame later. */
export function implausibleJump(prev: readonly Keypoint[], next: readonly Keypoint[]): boolean {
  const a = torso(prev), b = torso(next);
  if (!a || !b) return false;
  const ratio = b.len / a.len;
  return Math.hypot(b.x - a.x, b.y - a.y) / a.len > MAX_JUMP || ratio > MAX_SCALE_CHANGE || ratio < 1 / MAX_SCALE_CHANGE;
}

/** Median distance the body's joints (BODY) moved between two reads of the same frame. */
function medianMove(a: readonly Keypoint[], b: readonly Keypoint[]): number {
  const moves = BODY.map((k) => Math.hypot(a[k]!.x - b[k]!.x, a[k]!.y - b[k]!.y)).sort((x, y) => x - y);
  return moves[BODY.length >> 1]!;
}

const unseen = (): Keypoint[] => Array.from({ length: KP_COUNT }, () => ({ x: 0, y: 0, score: 0 }));

export interface PoseTracker {
  (frame: Frame): Promise<PoseFrame>;
  timings: PoseTimings;
}

export function createPoseTracker(models: PoseModels): PoseTracker {
  const isCut = createCutDetector();
  const detInput = new Float32Array(DETECTOR_SIZE * DETECTOR_SIZE * 3);
  const lmInput = new Float32Array(LANDMARK_SIZE * LANDMARK_SIZE * 3);
  const t: PoseTimings = { frames: 0, warpMs: 0, detectorMs: 0, landmarkMs: 0, detections: 0, landmarkRuns: 0, cuts: 0 };
  let roi: Roi | null = null;
  /** The ROI of the last frame with a pose in this shot, kept while the person is lost. */
  let lastGood: Roi | null = null;
  let prev: Keypoint[] | null = null;
  let lostFrames = 0;

  async function landmarksAt(frame: Frame, r: Roi): Promise<Landmarks> {
    const t0 = performance.now();
    warpRoi(frame, r, LANDMARK_SIZE, LANDMARK_RANGE, lmInput);
    const t1 = performance.now();
    const out = await models.landmarks.run(lmInput);
    t.warpMs += t1 - t0; t.landmarkMs += performance.now() - t1; t.landmarkRuns++;
    return decodeLandmarks(out.landmarks, out.presence, r);
  }

  async function detectRoi(frame: Frame, near: Roi | null): Promise<Roi | null> {
    const letter = fullFrameRoi(frame.width, frame.height);
    const t0 = performance.now();
    warpRoi(frame, letter, DETECTOR_SIZE, DETECTOR_RANGE, detInput);
    const t1 = performance.now();
    const raw = await models.detector.run(detInput);
    t.warpMs += t1 - t0; t.detectorMs += performance.now() - t1; t.detections++;
    const best = pickProminent(decodeDetections(raw, letter), frame.width, frame.height, near);
    return best ? detectionRoi(best) : null;
  }

  /**
   * When the detector finds no one: the landmark model on fallbackRois, each followed through
   * FALLBACK_PASSES passes (each on the ROI the last one gave); the last pass's pose is kept when
   * every pass found a large body and each agreed with the one before. An empty or non-person
   * picture mostly gives a presence near 0 on the first pass: one landmark run per ROI.
   */
  async function fallbackPose(frame: Frame, last: Roi | null): Promise<Landmarks | null> {
    const minTorso = FALLBACK_MIN_TORSO * Math.max(frame.width, frame.height);
    search: for (const start of fallbackRois(frame.width, frame.height, last)) {
      let before: Landmarks | null = null;
      let r = start;
      for (let i = 0; i < FALLBACK_PASSES; i++) {
        const pass = await landmarksAt(frame, r);
        const body = pass.presence >= MIN_PRESENCE ? torso(pass.keypoints) : null;
        if (!body || body.len < minTorso || (before && medianMove(before.keypoints, pass.keypoints) > FALLBACK_AGREEMENT * body.len)) continue search;
        before = pass;
        r = pass.nextRoi;
      }
      return before;
    }
    return null;
  }

  const estimate = async (frame: Frame): Promise<PoseFrame> => {
    t.frames++;
    const cut = isCut(frame);
    if (cut) { t.cuts++; roi = null; lastGood = null; prev = null; lostFrames = 0; }
    const lastRoi = roi;
    let lm: Landmarks | null = null;
    // A confident tracked pose that moved implausibly far is re-checked by the detector; when the
    // detector finds no one convincing either, the tracked pose stands (it is still the best read).
    let jumped: Landmarks | null = null;
    if (roi) {
      lm = await landmarksAt(frame, roi);
      if (lm.presence >= MIN_PRESENCE && prev && implausibleJump(prev, lm.keypoints)) jumped = lm;
      if (lm.presence < MIN_PRESENCE || jumped) lm = null;
    }
    // An empty scene (before the person walks in) costs a detector run per frame; after a short
    // grace it is searched every few frames only. A cut always searches at once.
    if (!lm && (lostFrames < LOST_GRACE || lostFrames % DETECT_EVERY === 0)) {
      const found = await detectRoi(frame, lastRoi);
      // The detector's ROI can be off when something covers the body (a barbell plate over the
      // head); the landmark model's own ROI from a first, unconvincing pass is usually right, so
      // it gets up to two more tries on the same frame.
      let r = found;
      for (let i = 0; r && i < REFINE_TRIES; i++) {
        const fresh = await landmarksAt(frame, r);
        if (fresh.presence >= MIN_PRESENCE) { lm = fresh; break; }
        r = fresh.nextRoi;
      }
      // Only once the person has been missing for a frame already: a one-frame miss of the detector
      // is most often followed by a detection, whose ROI (head included) reads the body best.
      if (!lm && !jumped && lostFrames >= FALLBACK_AFTER) lm = await fallbackPose(frame, lastGood);
    }
    lm ??= jumped;
    lostFrames = lm ? 0 : lostFrames + 1;
    roi = lm ? lm.nextRoi : null;
    lastGood = roi ?? lastGood;
    prev = lm ? lm.keypoints : null;
    const pose: PoseFrame = { timeMs: frame.timeMs, width: frame.width, height: frame.height, keypoints: lm ? lm.keypoints : unseen() };
    if (cut) pose.cut = true;
    return pose;
  };
  return Object.assign(estimate, { timings: t });
}
