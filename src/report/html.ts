// The report as one self-contained HTML page: inline CSS and SVG, images as data URIs, no script
// and nothing fetched, so it opens offline and can be mailed as is. One column on a phone.
import type { AnalysisResult } from '../analysis/result.js';
import type { SignalSeries } from './signal.js';
import { skeletonShapes, type PoseTrackLike } from './skeleton.js';
import type { VideoStills } from './frames.js';

export interface ReportInput {
  jobId: string;
  result: AnalysisResult;
  exercise: { exercise_id: string; name: string };
  videoName: string;
  generatedAt: Date;
  stills?: VideoStills;
  pose?: PoseTrackLike;
  signal?: SignalSeries;
  /** Shown under the header: what the report could not include, and why. */
  notes: string[];
}

const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const tone = (score: number, valid: boolean) => (!valid ? 'invalid' : score >= 85 ? 'good' : score >= 65 ? 'fair' : 'poor');
const humanize = (s: string) => s.replace(/_/g, ' ');

function durationOf(input: ReportInput): number {
  const reps = input.result.repetitions;
  return Math.max(
    input.stills?.durationMs ?? 0,
    input.pose?.frames_ms.at(-1) ?? 0,
    ...reps.map((r) => r.end_time_ms),
    1000,
  );
}

function timeline(input: ReportInput, duration: number): string {
  const W = 800;
  const H = 56;
  const x = (ms: number) => (ms / duration) * W;
  const segs = input.result.repetitions.map((r) => {
    const x0 = x(r.start_time_ms);
    const w = Math.max(3, x(r.end_time_ms) - x0);
    const cls = tone(r.quality_score, r.is_valid_rep);
    return `<a href="#attempt-${r.attempt_number}"><rect class="seg ${cls}" x="${x0.toFixed(1)}" y="10" width="${w.toFixed(1)}" height="26" rx="4"><title>Attempt ${r.attempt_number}: ${secs(r.start_time_ms)} to ${secs(r.end_time_ms)}, score ${Math.round(r.quality_score)}${r.is_valid_rep ? '' : ', not a valid rep'}</title></rect><text x="${(x0 + w / 2).toFixed(1)}" y="28" class="seg-label">${r.attempt_number}</text></a>`;
  });
  const ticks = axisTicks(duration).map((t) => `<text x="${x(t).toFixed(1)}" y="52" class="tick">${(t / 1000).toFixed(0)}s</text>`);
  return `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="Attempts over the video"><rect class="track" x="0" y="10" width="${W}" height="26" rx="4"/>${segs.join('')}${ticks.join('')}</svg>`;
}

function axisTicks(duration: number): number[] {
  const steps = [1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];
  const step = steps.find((s) => duration / s <= 8) ?? 600_000;
  const out: number[] = [];
  for (let t = 0; t <= duration; t += step) out.push(t);
  return out;
}

function chart(input: ReportInput, duration: number): string {
  const s = input.signal;
  if (!s) return '';
  const W = 800;
  const H = 240;
  const top = 14;
  const bottom = 214;
  const x = (ms: number) => (ms / duration) * W;
  const y = (v: number) => bottom - Math.min(1.2, v) / 1.2 * (bottom - top);
  const bands = input.result.repetitions.map((r) => {
    const x0 = x(r.start_time_ms);
    const w = Math.max(2, x(r.end_time_ms) - x0);
    return `<rect class="band ${r.is_valid_rep ? 'valid' : 'invalid'}" x="${x0.toFixed(1)}" y="${top}" width="${w.toFixed(1)}" height="${bottom - top}"/><text class="band-label" x="${(x0 + w / 2).toFixed(1)}" y="${top + 12}">${r.attempt_number}</text>`;
  });
  // The curve breaks where the body was not seen instead of inventing values.
  const paths: string[] = [];
  let current: string[] = [];
  s.timesMs.forEach((t, i) => {
    const v = s.values[i]!;
    if (Number.isNaN(v)) {
      if (current.length > 1) paths.push(current.join(' '));
      current = [];
      return;
    }
    current.push(`${current.length ? 'L' : 'M'}${x(t).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (current.length > 1) paths.push(current.join(' '));
  const evidence = input.result.repetitions.flatMap((r) => r.issues.map((i) => i.evidence_timestamp_ms));
  const marks = [...new Set(evidence)].map((t) => `<path class="evidence-mark" d="M${x(t).toFixed(1)},${bottom + 2} l-5,9 h10 z"><title>issue evidence at ${secs(t)}</title></path>`);
  const grid = [0, 0.5, 1].map((v) => `<line class="grid" x1="0" x2="${W}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/><text class="tick" x="4" y="${(y(v) - 3).toFixed(1)}">${v === 0 ? 'rest' : v === 1 ? 'full range' : ''}</text>`);
  const ticks = axisTicks(duration).map((t) => `<text x="${x(t).toFixed(1)}" y="${H - 2}" class="tick">${(t / 1000).toFixed(0)}s</text>`);
  return `<section class="card"><h2>Movement signal</h2><p class="muted">${esc(s.label)}. Shaded: the attempts (green valid, grey not); triangles: issue evidence.</p>
<div class="scroll"><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Exercise signal over time with the repetitions marked">${bands.join('')}${grid.join('')}${paths.map((d) => `<path class="signal" d="${d}"/>`).join('')}${marks.join('')}${ticks.join('')}</svg></div></section>`;
}

function evidenceFigure(input: ReportInput, t: number, what: string): string {
  const still = input.stills?.frames.get(t);
  if (!still) return `<figure class="evidence missing"><figcaption>No frame at ${secs(t)} (the video could not be read here)</figcaption></figure>`;
  const { width: w, height: h } = still;
  const bones = input.pose ? skeletonShapes(input.pose, t, w, h) : '';
  return `<figure class="evidence${h > w ? ' portrait' : ''}"><div class="frame" style="aspect-ratio:${w}/${h}"><img class="evidence-img" src="${still.dataUri}" width="${w}" height="${h}" alt="${esc(what)} at ${secs(t)}">${bones ? `<svg class="skeleton" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" aria-hidden="true">${bones}</svg>` : ''}</div><figcaption>${secs(t)}${bones ? ' · pose as the engine saw it' : ''}</figcaption></figure>`;
}

function attemptCard(input: ReportInput, r: AnalysisResult['repetitions'][number]): string {
  const cls = tone(r.quality_score, r.is_valid_rep);
  const issues = r.issues.length
    ? r.issues.map((i) => `<div class="issue">${evidenceFigure(input, i.evidence_timestamp_ms, i.name)}<div class="issue-text"><h4>${esc(i.name)} <span class="sev ${esc(i.severity)}">${esc(i.severity)} · ${i.impact_on_score}</span></h4><p>${esc(i.description)}</p><p class="fix"><b>Fix:</b> ${esc(i.correction)}</p><p class="muted">${esc(humanize(i.category))}</p></div></div>`).join('')
    : '<p class="muted">No form issues on this attempt.</p>';
  const strengths = r.strengths.length ? `<h4 class="sub">Strengths</h4><ul class="strengths">${r.strengths.map((s) => `<li><b>${esc(s.name)}</b>: ${esc(s.description)}</li>`).join('')}</ul>` : '';
  return `<article class="card attempt" id="attempt-${r.attempt_number}" data-attempt="${r.attempt_number}">
<header class="attempt-head"><h3>Attempt ${r.attempt_number}</h3><span class="score ${cls}">${Math.round(r.quality_score)}</span><span class="tag ${r.is_valid_rep ? 'valid' : 'invalid'}">${r.is_valid_rep ? 'valid rep' : 'not a valid rep'}</span></header>
<p class="muted">${secs(r.start_time_ms)} to ${secs(r.end_time_ms)} (${secs(r.end_time_ms - r.start_time_ms)})</p>
<h4 class="sub">Issues</h4>${issues}${strengths}</article>`;
}

const CSS = `
:root{--bg:#f5f6f8;--card:#fff;--ink:#1b1f24;--muted:#5d6670;--good:#1f9d55;--fair:#d98b00;--poor:#d64545;--line:#e3e6ea;--accent:#2563eb}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:880px;margin:0 auto;padding:12px}
h1{font-size:1.45rem;margin:.2em 0}h2{font-size:1.15rem;margin:0 0 .4em}h3{font-size:1.1rem;margin:0}h4{margin:.6em 0 .2em;font-size:1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px;margin:12px 0}
.muted{color:var(--muted);font-size:.9rem;margin:.2em 0}
.stats{display:flex;flex-wrap:wrap;gap:8px;margin:.6em 0 0}.stat{background:var(--bg);border-radius:8px;padding:6px 10px}.stat b{display:block;font-size:1.2rem}
.notes{background:#fff8e1;border-color:#f3d98b}
ol.areas{padding-left:1.2em;margin:0}ol.areas li{margin:.5em 0}
.timeline,.chart{width:100%;height:auto;display:block}.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
@media (max-width:640px){.timeline{min-width:560px}.chart{min-width:640px}}
.track{fill:var(--line)}.seg.good{fill:var(--good)}.seg.fair{fill:var(--fair)}.seg.poor{fill:var(--poor)}.seg.invalid{fill:#9aa3ad}
.seg-label{fill:#fff;font-size:13px;font-weight:600;text-anchor:middle}.tick{fill:var(--muted);font-size:11px}
.band.valid{fill:rgba(31,157,85,.13)}.band.invalid{fill:rgba(120,130,140,.15)}.band-label{fill:var(--muted);font-size:11px;text-anchor:middle}
.grid{stroke:var(--line);stroke-dasharray:4 4}.signal{fill:none;stroke:var(--accent);stroke-width:2.2;stroke-linejoin:round}.evidence-mark{fill:var(--poor)}
.attempt-head{display:flex;align-items:center;gap:10px;flex-wrap:wrap}
.score{font-weight:700;border-radius:999px;padding:2px 10px;color:#fff}.score.good{background:var(--good)}.score.fair{background:var(--fair)}.score.poor{background:var(--poor)}.score.invalid{background:#9aa3ad}
.tag{font-size:.8rem;border-radius:6px;padding:1px 8px;border:1px solid var(--line)}.tag.invalid{color:var(--poor)}
.issue{display:flex;flex-wrap:wrap;gap:12px;border-top:1px solid var(--line);padding:10px 0}
.evidence{margin:0;flex:1 1 260px;max-width:420px}.evidence.portrait{flex-basis:200px;max-width:280px}.issue-text{flex:1 1 240px}
.frame{position:relative;width:100%;background:#000;border-radius:8px;overflow:hidden}
.frame img{display:block;width:100%;height:100%}.frame svg{position:absolute;inset:0;width:100%;height:100%}
.bone{stroke:#00e5ff;stroke-linecap:round;opacity:.9}.bone.left{stroke:#ffd400}.bone.right{stroke:#ff4fd8}.joint{fill:#fff;stroke:#111;stroke-width:1}
figcaption{font-size:.8rem;color:var(--muted)}
.sev{font-size:.78rem;font-weight:500;border-radius:6px;padding:1px 6px;background:var(--bg);white-space:nowrap}.sev.major{color:var(--poor)}.sev.moderate{color:var(--fair)}
.fix{margin:.3em 0}.sub{color:var(--muted);text-transform:uppercase;font-size:.75rem;letter-spacing:.04em}
ul.strengths{margin:.2em 0;padding-left:1.2em}
@media (max-width:520px){main{padding:6px}.card{padding:10px;border-radius:10px}.evidence{max-width:none}}
`;

export function renderReport(input: ReportInput): string {
  const { result } = input;
  const reps = result.repetitions;
  const valid = reps.filter((r) => r.is_valid_rep);
  const avg = reps.length ? Math.round(reps.reduce((s, r) => s + r.quality_score, 0) / reps.length) : undefined;
  const duration = durationOf(input);
  const fb = result.overall_feedback;
  const vis = fb.visibility_context;
  const areas = fb.key_improvement_areas
    .slice()
    .sort((a, b) => a.priority - b.priority)
    .map((a) => `<li><b>${esc(a.name)}</b> <span class="muted">(${esc(humanize(a.impact))} impact, ${esc(humanize(a.pattern_of_occurrence))}${a.affected_reps.length ? `; attempts ${a.affected_reps.map((n) => `<a href="#attempt-${n}">${n}</a>`).join(', ')}` : ''})</span><br>${esc(a.description)}<br><span class="fix"><b>Fix:</b> ${esc(a.correction)}</span></li>`)
    .join('');
  const notes = input.notes.length ? `<section class="card notes">${input.notes.map((n) => `<p class="muted">${esc(n)}</p>`).join('')}</section>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(input.exercise.name)}: rep-by-rep report</title><style>${CSS}</style></head>
<body><main>
<header class="card"><h1>${esc(input.exercise.name)}: rep-by-rep report</h1>
<p class="muted">${esc(input.videoName)} · job ${esc(input.jobId)} · ${esc(input.generatedAt.toISOString().replace('T', ' ').slice(0, 16))} UTC</p>
<div class="stats"><div class="stat"><b>${reps.length}</b>attempts</div><div class="stat"><b>${valid.length}</b>valid reps</div>${avg === undefined ? '' : `<div class="stat"><b>${avg}</b>average score</div>`}<div class="stat"><b>${esc(humanize(vis.camera_angle))}</b>camera angle</div></div></header>
${notes}
<section class="card summary"><h2>Summary</h2><p>${esc(fb.brief_summary)}</p>${fb.strengths.length ? `<h4 class="sub">What went well</h4><ul class="strengths">${fb.strengths.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>` : ''}<p class="muted">Camera: ${esc(vis.angle_recommendation)}</p></section>
<section class="card"><h2>Key improvement areas</h2><ol class="areas">${areas}</ol></section>
<section class="card"><h2>Attempts</h2>${reps.length ? `<div class="scroll">${timeline(input, duration)}</div>` : '<p class="muted">No attempts were found in this video.</p>'}</section>
${chart(input, duration)}
${reps.map((r) => attemptCard(input, r)).join('\n')}
</main></body></html>
`;
}
