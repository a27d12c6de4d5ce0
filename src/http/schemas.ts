// Response and request schemas of SPEC.md. Routes validate and serialize with them and the
// OpenAPI document at /openapi.json is generated from them.
import { Type, type Static } from '@sinclair/typebox';
import { AnalysisResultSchema } from '../analysis/result.js';

export const ErrorEnvelope = Type.Object(
  { error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { $id: 'ErrorEnvelope', description: 'Every failed request. Branch on error.code; never parse error.message.' },
);

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref(ErrorEnvelope)]));

const Nullable = <T extends ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

export const Identity = Type.Object({
  partner_id: Type.String(),
  partner_name: Type.String(),
  status: Type.String({ description: 'active for any key that authenticates' }),
  usage: Type.Object({
    limit: Nullable(Type.Integer({ minimum: 0 })),
    used: Type.Integer({ minimum: 0 }),
    remaining: Nullable(Type.Integer({ minimum: 0 })),
  }),
});

export const Exercise = Type.Object({ exercise_id: Type.String(), name: Type.String(), description: Type.String() });
export const ExerciseList = Type.Object({ exercises: Type.Array(Exercise) });

export const UploadSpot = Type.Object({
  handle: Type.String(),
  upload_url: Type.String({ format: 'uri', description: 'A bearer credential: PUT the raw bytes here, without Authorization.' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const UploadStatus = Type.Object({
  handle: Type.String(),
  state: Type.Union([Type.Literal('minted'), Type.Literal('uploaded'), Type.Literal('claimed'), Type.Literal('expired')]),
  expires_at: Type.String({ format: 'date-time' }),
});

export const HandleParams = Type.Object({ handle: Type.String() });
export const JobParams = Type.Object({ job_id: Type.String() });

export const JobStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('processing'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);

export const SubmitJobBody = Type.Object({
  upload_handle: Type.String({ minLength: 1 }),
  exercise_id: Type.String(),
});
export type SubmitJobBody = Static<typeof SubmitJobBody>;

export const JobSummary = Type.Object({ job_id: Type.String(), status: JobStatus });

export const Job = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  result: Type.Optional(AnalysisResultSchema),
  error_code: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const JobListQuery = Type.Object({
  status: Type.Optional(JobStatus),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: '1 to 1000, default 100' })),
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$', description: 'next_cursor of the previous page' })),
});

export const JobList = Type.Object({
  jobs: Type.Array(JobSummary),
  next_cursor: Type.Optional(Type.String({ description: 'present when more jobs follow; pass it as ?cursor=' })),
});

export const Liveness = Type.Object({ status: Type.Literal('ok') });

export const PoseTrackSchema = Type.Object(
  {
    landmarks: Type.Array(Type.String(), { description: 'Landmark names, in the order of each frame\'s triples (MoveNet\'s 17: nose, left_eye, ...).' }),
    width: Type.Integer({ description: 'Decoded frame width the x coordinates are normalised by.' }),
    height: Type.Integer({ description: 'Decoded frame height the y coordinates are normalised by.' }),
    frames_ms: Type.Array(Type.Integer(), { description: 'Frame times in ms from the start of the video, one per row of keypoints.' }),
    keypoints: Type.Array(Type.Array(Type.Number()), {
      description: 'Per frame, landmarks.length x 3 numbers: x and y normalised to 0..1, confidence 0..1 (0: not seen).',
    }),
  },
  { description: 'The keypoint series the result was judged from. Send Accept-Encoding: gzip for the compressed form.' },
);
