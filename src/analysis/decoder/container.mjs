// What the decoder process needs to know about a file before FFmpeg sees it: which container it
// is (only MP4/MOV, WebM and Matroska are handed to a demuxer: playlists, images and anything else
// are refused here, so no demuxer that follows URLs or other files is ever reached), and the
// video track's display matrix (how phones mark portrait video) read from the MP4 boxes.

/** 'mp4' | 'webm' | 'mkv' | undefined, from the first bytes. */
export function containerOf(head) {
  if (head.length >= 12) {
    const type = head.toString('latin1', 4, 8);
    if (['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot'].includes(type)) return 'mp4';
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    return head.toString('latin1').includes('webm') ? 'webm' : 'mkv';
  }
  return undefined;
}

const MAX_BOXES = 20000;

/** Child boxes of [start, end): { type, start (payload), end }. Stops at the first malformed box. */
function* boxes(file, start, end, budget) {
  let pos = start;
  while (pos + 8 <= end && budget.left-- > 0) {
    const h = file.read(pos, 16);
    if (h.length < 8) return;
    let size = h.readUInt32BE(0);
    const type = h.toString('latin1', 4, 8);
    let header = 8;
    if (size === 1) {
      if (h.length < 16) return;
      size = Number(h.readBigUInt64BE(8));
      header = 16;
    } else if (size === 0) {
      size = end - pos;
    }
    if (size < header || pos + size > end) return;
    yield { type, start: pos + header, end: pos + size };
    pos += size;
  }
}

/**
 * The tkhd matrix (9 int32, a b u c d v x y w) of the first video track of an MP4/MOV file, or
 * undefined. Reads box headers and two small boxes per track, never the sample tables.
 */
export function videoTrackMatrix(file) {
  const budget = { left: MAX_BOXES };
  const moov = [...boxes(file, 0, file.size, budget)].find((b) => b.type === 'moov');
  if (!moov) return undefined;
  for (const trak of boxes(file, moov.start, moov.end, budget)) {
    if (trak.type !== 'trak') continue;
    let matrix;
    let video = false;
    for (const child of boxes(file, trak.start, trak.end, budget)) {
      if (child.type === 'tkhd') {
        const b = file.read(child.start, Math.min(child.end - child.start, 120));
        const at = b[0] === 1 ? 52 : 40; // version 1 widens three times to 64 bits
        if (b.length >= at + 36) matrix = Array.from({ length: 9 }, (_, i) => b.readInt32BE(at + 4 * i));
      } else if (child.type === 'mdia') {
        for (const m of boxes(file, child.start, child.end, budget)) {
          if (m.type === 'hdlr') video = file.read(m.start + 8, 4).toString('latin1') === 'vide';
        }
      }
    }
    if (video) return matrix;
  }
  return undefined;
}

/**
 * Clockwise degrees (0, 90, 180, 270) a decoded picture must turn to be shown upright, as
 * FFmpeg's autorotate computes it (atan2(b, a) of the display matrix, nearest quarter turn).
 */
export function rotationOf(matrix) {
  if (!matrix) return 0;
  const [a, b] = matrix;
  if (!a && !b) return 0;
  const deg = Math.round((Math.atan2(b, a) * 180) / Math.PI / 90) * 90;
  return ((deg % 360) + 360) % 360;
}
