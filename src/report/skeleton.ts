// The pose skeleton of one frame as SVG shapes in the frame's own pixel space, drawn over the
// evidence image. Bones join the landmarks by name (COCO's 17, plus feet and hands when the track
// has them), so the track's order and size do not matter.
export interface PoseTrackLike {
  landmarks: string[];
  width: number;
  height: number;
  frames_ms: number[];
  keypoints: number[][];
}

/** Below this confidence a landmark is not drawn (the engine treats it as unseen too). */
export const MIN_CONFIDENCE = 0.3;

const BONES: [string, string][] = [
  ['left_shoulder', 'right_shoulder'], ['left_hip', 'right_hip'],
  ['left_shoulder', 'left_hip'], ['right_shoulder', 'right_hip'],
  ['left_shoulder', 'left_elbow'], ['left_elbow', 'left_wrist'],
  ['right_shoulder', 'right_elbow'], ['right_elbow', 'right_wrist'],
  ['left_hip', 'left_knee'], ['left_knee', 'left_ankle'],
  ['right_hip', 'right_knee'], ['right_knee', 'right_ankle'],
  ['left_ankle', 'left_heel'], ['left_heel', 'left_toe'], ['left_ankle', 'left_toe'], ['left_wrist', 'left_hand'],
  ['right_ankle', 'right_heel'], ['right_heel', 'right_toe'], ['right_ankle', 'right_toe'], ['right_wrist', 'right_hand'],
  ['nose', 'left_eye'], ['nose', 'right_eye'], ['left_eye', 'left_ear'], ['right_eye', 'right_ear'],
];

/** Index of the track frame nearest to `timeMs` (frames_ms is ascending). */
export function nearestFrame(track: PoseTrackLike, timeMs: number): number {
  const t = track.frames_ms;
  if (t.length === 0) return -1;
  let lo = 0;
  let hi = t.length - 1;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (t[m]! < timeMs) lo = m + 1;
    else hi = m;
  }
  return lo > 0 && Math.abs(t[lo - 1]! - timeMs) <= Math.abs(t[lo]! - timeMs) ? lo - 1 : lo;
}

export interface Point {
  x: number;
  y: number;
  c: number;
}

/** The landmarks of one track frame scaled to a width x height image, by name. */
export function landmarksAt(track: PoseTrackLike, frame: number, width: number, height: number): Map<string, Point> {
  const row = track.keypoints[frame] ?? [];
  const points = new Map<string, Point>();
  track.landmarks.forEach((name, i) => {
    const x = row[i * 3];
    const y = row[i * 3 + 1];
    const c = row[i * 3 + 2];
    if (x === undefined || y === undefined || c === undefined) return;
    points.set(name, { x: x * width, y: y * height, c });
  });
  return points;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** SVG elements (no <svg> wrapper) of the skeleton at `timeMs`; '' when nothing is seen. */
export function skeletonShapes(track: PoseTrackLike, timeMs: number, width: number, height: number): string {
  const frame = nearestFrame(track, timeMs);
  if (frame < 0) return '';
  const pts = landmarksAt(track, frame, width, height);
  const seen = (n: string) => {
    const p = pts.get(n);
    return p && p.c >= MIN_CONFIDENCE ? p : undefined;
  };
  const stroke = Math.max(2, Math.round(Math.max(width, height) / 160));
  const lines = BONES.flatMap(([a, b]) => {
    const p = seen(a);
    const q = seen(b);
    if (!p || !q) return [];
    const side = a.startsWith('left') && b.startsWith('left') ? 'left' : a.startsWith('right') && b.startsWith('right') ? 'right' : 'mid';
    return [`<line class="bone ${side}" x1="${r1(p.x)}" y1="${r1(p.y)}" x2="${r1(q.x)}" y2="${r1(q.y)}" stroke-width="${stroke}"/>`];
  });
  const dots = [...pts].filter(([, p]) => p.c >= MIN_CONFIDENCE).map(([name, p]) => `<circle class="joint" cx="${r1(p.x)}" cy="${r1(p.y)}" r="${stroke * 1.4}"><title>${name.replace(/_/g, ' ')}</title></circle>`);
  return lines.join('') + dots.join('');
}
