// The first nine's other exercises as people film them to show a fault (first-nine-demos.ts): a
// clean set must pass from every view people film it from (front, 30/45/60 deg diagonals, side,
// back; level and 10 deg down, or on the floor and 10 deg down for the floor exercises; 2 and 4 m;
// portrait and landscape size), and each rule's fault, at the size a student or a coach shows it,
// must be named from every view that shows it and said "not checked" where the view cannot show it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PipelineOutput } from '../../src/analysis/pipeline.js';
import { judgedFrom } from '../../src/analysis/view.js';
import { SETS, filmDemo, wave, jackWave, lungeAt, sideLungeAt, pressAt, curlAt, jackAt, bridgeAt, sitUpAt, FLOOR_HIPS, type Demo } from './first-nine-demos.js';
import type { Camera } from './camera.js';
import { repInPicture } from '../../src/analysis/rules/in-picture.js';
import { sweepPhones } from './view-sweep.js';

const ALL = [0, 30, 45, 60, 90, 180];
const SIZES = [1, 0.5];

/** Cameras at the yaws named: level (on the floor, for a body lying there) and 10 deg down, 2 and 4 m. */
function cameras(yaws: readonly number[], floor: boolean): Camera[] {
  return yaws.flatMap((yaw) => (floor ? [3, 10] : [0, 10]).flatMap((pitch) => [2, 4].map((distance) => ({ yaw, pitch, distance }))));
}

const issueNames = (out: PipelineOutput) => out.result.repetitions.map((r) => r.issues.map((i) => i.name));
const describe = (out: PipelineOutput) => out.result.repetitions.map((r) => r.issues.map((i) => `${i.name}: ${i.description}`).join('; ') || 'clean').join(' | ');

const REPS: Record<string, number> = { 'jumping-jack': 6 };

for (const [id, set] of Object.entries(SETS)) {
  // A bridge filmed from behind the head: the torso and thighs point at the camera and no rep is
  // counted (the hip angle reads nothing like it); people film bridges side-on or from the feet.
  const yaws = id === 'glute-bridge' ? ALL.filter((y) => y !== 180) : ALL;
  test(`a clean ${id} set passes from every view, height, distance and picture size`, () => {
    for (const cam of cameras(yaws, !!set.clean.aim)) {
      for (const scale of SIZES) {
        const out = filmDemo(set.def, set.clean, cam, { fps: set.fps, scale });
        const n = REPS[id] ?? 4;
        assert.equal(out.result.repetitions.length, n, `${JSON.stringify(cam)} x${scale}: reps`);
        assert.deepEqual(issueNames(out), new Array(n).fill([]), `${JSON.stringify(cam)} x${scale}: ${describe(out)}`);
      }
    }
  });
}

/**
 * A fault as demonstrated: the names it may be faulted under, the yaws that show it, and how many
 * reps must name it (3 of 4; a stall is one rep). `knownMiss`: a miss of the rules as they stand
 * at `yaws`, skipped by that name (squat-demos.unit), with why it is not fixed.
 */
interface Case { id: string; demo: Demo; names: string[]; yaws: number[]; named?: number; knownMiss?: string }

const FLOOR = { aim: FLOOR_HIPS };
const BRIDGE = { ...FLOOR, wave: wave(1, 1, 0.6), seconds: 14.9 };
const SITUP = { ...FLOOR, wave: wave(1.2, 1.2), seconds: 14.4 };
const JACKS = { wave: jackWave(), seconds: 6.6 };

const CASES: Record<string, Case> = {
  // The hips stopping 45 units (20 cm) above a parallel front thigh: the front knee at about 122 deg.
  'lunge: shallow': { id: 'lunge', demo: { at: lungeAt({ bottom: 145 }) }, names: ['Lunge depth', 'Partial repetition'], yaws: [60, 90, 180] },
  'lunge: shallow, seen from a 30-45 deg diagonal': {
    id: 'lunge', demo: { at: lungeAt({ bottom: 145 }) }, names: ['Lunge depth', 'Partial repetition'], yaws: [30, 45],
    knownMiss: 'the knee angle is foreshortened by the sine of the yaw (a clean lunge read 111-121 from 30 deg), so depth is not checked under 55 deg; the counter does not call it partial there',
  },
  // The hips travelling 45 cm forward at the bottom: the front knee 0.9 shin lengths past the ankle.
  'lunge: front knee past the toes': { id: 'lunge', demo: { at: lungeAt({ forward: 100 }) }, names: ['Front knee past the toes'], yaws: [90] },
  'lunge: front knee past the toes, seen from a diagonal': {
    id: 'lunge', demo: { at: lungeAt({ forward: 100 }) }, names: ['Front knee past the toes'], yaws: [30, 45, 60],
    knownMiss: 'the knee\'s travel ahead of the ankle is read across the picture, short by the sine of the yaw (6 of 8 cameras at 60, none at 30-45)',
  },
  'lunge: torso leaning 45 deg': { id: 'lunge', demo: { at: lungeAt({ tilt: 45 }) }, names: ['Torso leaning forward'], yaws: [45, 60, 90] },
  'lunge: torso leaning 45 deg, from 30 deg': {
    id: 'lunge', demo: { at: lungeAt({ tilt: 45 }) }, names: ['Torso leaning forward'], yaws: [30],
    knownMiss: 'the lean is read in the picture, short by the sine of the yaw (4 of 8 cameras; squat-demos.unit finds the same for the squat\'s lean)',
  },
  // Side lunge: the hips shifting 25 units instead of 70 toward the working foot.
  'side lunge: shallow': { id: 'side-lunge', demo: { at: sideLungeAt({ shift: 25 }) }, names: ['Side lunge depth', 'Partial repetition'], yaws: ALL },
  // The working knee pulled 11 cm inside the ankle at the bottom.
  'side lunge: knee caving in, from behind': { id: 'side-lunge', demo: { at: sideLungeAt({ kneeIn: 47 }) }, names: ['Knee caving in'], yaws: [180] },
  'side lunge: knee caving in, from the front': {
    id: 'side-lunge', demo: { at: sideLungeAt({ kneeIn: 47 }) }, names: ['Knee caving in'], yaws: [0],
    knownMiss: 'the bent knee is nearer the camera than the hip and the ankle and drawn further out: 0.10-0.17 shin lengths inside the line against the 0.2 limit (0.30-0.36 from behind); the limit is not tuned on any side-lunge clip',
  },
  // The trailing leg shortened by 25 units: its knee bent to about 125 deg.
  'side lunge: trailing leg bending': { id: 'side-lunge', demo: { at: sideLungeAt({ trailBend: 25 }) }, names: ['Trailing leg bending'], yaws: [45, 60] },
  'side lunge: trailing leg bending, from 30 deg': {
    id: 'side-lunge', demo: { at: sideLungeAt({ trailBend: 25 }) }, names: ['Trailing leg bending'], yaws: [30],
    knownMiss: 'the trailing knee bends toward the front, foreshortened at 30 deg (6 of 8 cameras)',
  },
  'side lunge: torso folding 60 deg': { id: 'side-lunge', demo: { at: sideLungeAt({ tilt: 60 }) }, names: ['Torso collapsing'], yaws: [30, 45, 60, 90] },
  // Shoulder press: the elbows stopping 50 deg short of straight.
  'shoulder press: incomplete lockout': { id: 'shoulder-press', demo: { at: pressAt({ topBend: 50 }) }, names: ['Incomplete lockout'], yaws: [0, 30, 45, 180] },
  'shoulder press: incomplete lockout, side-on': {
    id: 'shoulder-press', demo: { at: pressAt({ topBend: 50 }) }, names: ['Incomplete lockout'], yaws: [60, 90],
    knownMiss: 'the arms press out to the sides (plane 80 deg), so the elbows bend in the body\'s frontal plane, which side-on is seen edge-on: the bent elbow reads straight and the rep is praised',
  },
  // The weight coming down only to the top of the head (upper arms 25 deg above level).
  'shoulder press: short bottom': { id: 'shoulder-press', demo: { at: pressAt({ bottomRaise: 115 }) }, names: ['Short bottom position'], yaws: ALL },
  'shoulder press: leaning back 25 deg': { id: 'shoulder-press', demo: { at: pressAt({ leanBack: 25 }) }, names: ['Leaning back'], yaws: [45, 60, 90] },
  'shoulder press: leaning back, from 30 deg': {
    id: 'shoulder-press', demo: { at: pressAt({ leanBack: 25 }) }, names: ['Leaning back'], yaws: [30],
    knownMiss: 'the lean back is read in the picture, short by the sine of the yaw (0 of 8 cameras)',
  },
  // One arm pressing 35 deg short of the other.
  'shoulder press: uneven arms': { id: 'shoulder-press', demo: { at: pressAt({ lagging: 35 }) }, names: ['Uneven arms'], yaws: [0, 180] },
  // Bicep curl: the elbows bending only to 85 deg.
  'bicep curl: incomplete curl': { id: 'bicep-curl', demo: { at: curlAt({ top: 85 }) }, names: ['Incomplete curl', 'Partial repetition'], yaws: ALL },
  // The elbows opening only to 120 deg between reps.
  'bicep curl: arms not straightening': { id: 'bicep-curl', demo: { at: curlAt({ bottom: 60 }) }, names: ['Arms not straightening'], yaws: [45, 60, 90] },
  'bicep curl: arms not straightening, from 30 deg': {
    id: 'bicep-curl', demo: { at: curlAt({ bottom: 60 }) }, names: ['Arms not straightening'], yaws: [30],
    knownMiss: 'the elbow bends in the body\'s sagittal plane, foreshortened at 30 deg (4 of 8 cameras)',
  },
  // The upper arms swinging 50 deg forward at the top.
  'bicep curl: elbows drifting': { id: 'bicep-curl', demo: { at: curlAt({ drift: 50 }) }, names: ['Elbows drifting forward'], yaws: ALL },
  // The torso rocking 20 deg back at the top.
  'bicep curl: body swing': { id: 'bicep-curl', demo: { at: curlAt({ swing: 20 }) }, names: ['Body swing'], yaws: [45, 60, 90] },
  'bicep curl: body swing, front, back and 30 deg': {
    id: 'bicep-curl', demo: { at: curlAt({ swing: 20 }) }, names: ['Body swing'], yaws: [0, 30, 180],
    knownMiss: 'square-on the rock is read from the torso\'s shortening (cos 20 = 0.94, against an 18 deg limit for the front\'s foreshortening noise): 6 of 8 cameras in front, 2 of 8 behind, 4 of 8 at 30 deg',
  },
  // Jumping jacks: the arms only to 100 deg, the hands at the ears.
  'jumping jack: arms not overhead': { id: 'jumping-jack', demo: { at: jackAt({ arms: 100 }), ...JACKS }, names: ['Arms not overhead'], yaws: [0, 30, 45, 60, 90] },
  // The feet moving 3.5 cm out: the stance 0.8 shoulder widths.
  'jumping jack: narrow jump': { id: 'jumping-jack', demo: { at: jackAt({ feet: 8 }), ...JACKS }, names: ['Narrow jump'], yaws: [0, 180] },
  // The fourth jack taking 2.6 s against 1 s.
  'jumping jack: a stalled rep': { id: 'jumping-jack', demo: { at: jackAt(), wave: jackWave(1, 3, 2.6), seconds: 8.2 }, names: ['Rushed or stalled rep'], yaws: ALL, named: 1 },
  // Glute bridge: the torso rising 12 deg instead of 25.
  'glute bridge: hips not extended': { id: 'glute-bridge', demo: { at: bridgeAt({ top: 12 }), ...BRIDGE }, names: ['Hips not fully extended', 'Partial repetition'], yaws: [30, 45, 60, 90] },
  // The feet set 35 cm further from the shoulders: the shins 45 deg past square at the top.
  'glute bridge: feet too far': { id: 'glute-bridge', demo: { at: bridgeAt({ feet: 280 }), ...BRIDGE }, names: ['Foot placement'], yaws: [45, 60, 90] },
  // The heels pulled in 22 cm: the shins 33 deg back toward the hips at the top.
  'glute bridge: feet too close': { id: 'glute-bridge', demo: { at: bridgeAt({ feet: 150 }), ...BRIDGE }, names: ['Foot placement'], yaws: [90] },
  'glute bridge: feet too close, at a diagonal': {
    id: 'glute-bridge', demo: { at: bridgeAt({ feet: 150 }), ...BRIDGE }, names: ['Foot placement'], yaws: [30, 45, 60],
    knownMiss: 'the shin\'s tilt is read against the floor line in the picture; at a diagonal the tilt toward the hips is foreshortened and reads inside the 25 deg limit (the feet-far tilt, 45 deg, still reads past 40 from 45 deg on)',
  },
  // Up in 0.35 s and straight down: no pause at the top.
  'glute bridge: no pause at the top': { id: 'glute-bridge', demo: { at: bridgeAt(), ...FLOOR, wave: wave(0.35, 0.35, 0, 1.2), seconds: 8.3 }, names: ['No pause at the top'], yaws: [30, 45, 60, 90] },
  // Sit-up: the torso rising to 45 deg instead of 75.
  'sit-up: not sitting up': { id: 'sit-up', demo: { at: sitUpAt({ top: 45 }), ...SITUP }, names: ['Not sitting all the way up', 'Partial repetition'], yaws: [30, 45, 60, 90] },
  // Up in 1.5 s, down in 0.3.
  'sit-up: dropping back down': { id: 'sit-up', demo: { at: sitUpAt(), ...FLOOR, wave: wave(1.5, 0.3), seconds: 12.2 }, names: ['Dropping back down'], yaws: ALL },
  // The thighs rising 30 deg as the torso comes up: the feet 25 cm off the floor.
  'sit-up: feet lifting': { id: 'sit-up', demo: { at: sitUpAt({ legs: 30 }), ...SITUP }, names: ['Feet lifting'], yaws: [30, 45, 60, 90] },
  'sit-up: pulling on the neck': {
    id: 'sit-up', demo: { at: sitUpAt({ neck: 90 }), ...SITUP }, names: ['Pulling on the neck'], yaws: [60, 90],
    knownMiss: 'the 75 deg limit (the median over the rep) sits on the pose model\'s reading of a neutral neck on real sit-ups (50-65 deg: the ear in front of the shoulder); the stick figure\'s neutral head, on the back\'s line, reads 4, and the chin pulled 90 deg toward the chest at the top reads 50 (99 at the top): the figure and the model disagree by the limit\'s own margin, so the rule is neither shown nor changed here',
  },
};

for (const [name, c] of Object.entries(CASES)) {
  const set = SETS[c.id]!;
  test(`a demonstrated fault is named from the views that show it: ${name}`, c.knownMiss ? { skip: `known miss: ${c.knownMiss}` } : {}, () => {
    for (const cam of cameras(c.yaws, !!c.demo.aim)) {
      for (const scale of SIZES) {
        const out = filmDemo(set.def, c.demo, cam, { fps: set.fps, scale });
        const named = issueNames(out).filter((names) => names.some((n) => c.names.includes(n))).length;
        assert.ok(out.reps.length >= 3 && named >= (c.named ?? 3), `${name}, ${JSON.stringify(cam)} x${scale}: ${named} of ${out.reps.length} reps named it: ${describe(out)}`);
      }
    }
  });
}

/** No rep is judged by the rule (not in the view's rules, or the rule gives no verdict on it). */
function notChecked(out: PipelineOutput, ruleId: string, id: string): boolean {
  const rule = SETS[id]!.def.rules.find((r) => r.id === ruleId)!;
  return !judgedFrom(rule, out.view) || out.reps.every((rep) => rule.check(rep) === undefined);
}

test('where the view cannot show a fault, the rule is not checked (never passed, never praised)', () => {
  const cases: [string, string, Demo, number[]][] = [
    // The working knee and the trailing knee bend toward the camera, the torso folds toward it.
    ['side-lunge', 'side-lunge-depth', { at: sideLungeAt({ shift: 25 }) }, [0, 180]],
    ['side-lunge', 'side-lunge-trailing', { at: sideLungeAt({ trailBend: 25 }) }, [0, 180]],
    ['side-lunge', 'side-lunge-torso', { at: sideLungeAt({ tilt: 60 }) }, [0, 180]],
    // The front knee's plane seen obliquely.
    ['lunge', 'lunge-depth', { at: lungeAt({ bottom: 145 }) }, [0, 30, 45, 180]],
    // The head's turn off the back seen obliquely.
    ['sit-up', 'situp-neck', { at: sitUpAt({ neck: 90 }), ...SITUP }, [0, 30, 45, 180]],
    // A bridge's shoulders, hips and knees along the line of sight from its feet.
    ['glute-bridge', 'bridge-hold', { at: bridgeAt(), ...FLOOR, wave: wave(0.35, 0.35, 0, 1.2), seconds: 8.3 }, [0]],
  ];
  for (const [id, ruleId, demo, yaws] of cases) {
    const set = SETS[id]!;
    const strength = set.def.rules.find((r) => r.id === ruleId)!.strength.name;
    for (const cam of cameras(yaws, !!demo.aim)) {
      const out = filmDemo(set.def, demo, cam, { fps: set.fps });
      assert.ok(notChecked(out, ruleId, id), `${ruleId} from ${JSON.stringify(cam)} was checked: ${describe(out)}`);
      assert.ok(out.result.repetitions.every((r) => !r.strengths.some((s) => s.name === strength)), `${ruleId} from ${JSON.stringify(cam)} praised "${strength}"`);
    }
  }
});

test('a shallow side lunge\'s straight, slanting working leg is not read as a knee caving in', () => {
  // In the wide stance the leg slants in from the ankle to the hip: its knee sits inside the ankle
  // by the slant (0.2-0.4 shin lengths) while right over the foot.
  for (const cam of cameras([0, 180], false)) {
    const out = filmDemo(SETS['side-lunge']!.def, { at: sideLungeAt({ shift: 25 }) }, cam);
    assert.ok(issueNames(out).every((n) => !n.includes('Knee caving in')), `${JSON.stringify(cam)}: ${describe(out)}`);
  }
});

test('a bridge held at the top with the hips pushed past the shoulder-knee line has its pause', () => {
  // The feet set far: at the top the hips rise past the line, and the plain hip angle folds back
  // at 180, reading the held top as two moments passing through it.
  for (const cam of cameras([45, 60, 90], true)) {
    const out = filmDemo(SETS['glute-bridge']!.def, { at: bridgeAt({ feet: 280 }), ...BRIDGE }, cam);
    assert.ok(issueNames(out).every((n) => !n.includes('No pause at the top')), `${JSON.stringify(cam)}: ${describe(out)}`);
  }
});

test('a bridge filmed by a phone whose picture cuts the knees off is not judged on them; with them in the picture it is', () => {
  // A phone 1.5-2.5 m away with the body half-way to the picture's edge (view-sweep.ts
  // sweepPhones' turn) cuts the knees off; their place is the pose model's guess, and a clean
  // bridge read 0.1-2.6 band short of straight hips: "Hips not fully extended" (16zd).
  const phone = (label: string) => sweepPhones().find((p) => p.label === label)!.phone;
  const cut: Camera[] = [
    { yaw: 30, pitch: 3, distance: 1.5, phone: phone('75 deg landscape turn -0.5 -0.3') },
    { yaw: 90, pitch: 3, distance: 2.5, phone: phone('75 deg portrait turn -0.5 -0.3') },
    { yaw: 90, pitch: 10, distance: 1.5, phone: phone('75 deg landscape turn -0.5 -0.3') },
  ];
  for (const cam of cut) {
    const out = filmDemo(SETS['glute-bridge']!.def, SETS['glute-bridge']!.clean, cam);
    assert.equal(out.result.repetitions.length, 4, `${JSON.stringify(cam)}: reps`);
    assert.ok(out.reps.every((r) => !repInPicture(r, ['knee'])), `${JSON.stringify(cam)}: the knees stay in the picture`);
    assert.deepEqual(issueNames(out), new Array(4).fill([]), `${JSON.stringify(cam)}: ${describe(out)}`);
  }
  // The same phones aimed at the body keep the knees in, and the short bridge is still named.
  for (const cam of cut) {
    const centred = { ...cam, phone: { ...cam.phone!, turn: [0, 0] as const } };
    const out = filmDemo(SETS['glute-bridge']!.def, { at: bridgeAt({ top: 12 }), ...BRIDGE }, centred);
    assert.ok(out.reps.every((r) => repInPicture(r, ['shoulder', 'hip', 'knee'])), `${JSON.stringify(centred)}: cut`);
    assert.ok(issueNames(out).filter((n) => n.includes('Hips not fully extended')).length >= 3, `${JSON.stringify(centred)}: ${describe(out)}`);
  }
});
