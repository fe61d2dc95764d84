// A problem answer (RFC 9457 problem+json, docs/spec/profile.md section 7) that an app service
// returns as a value for the routes that answer it raw: the handler sends it as it is.

export interface ProblemAnswer {
  readonly _tag: "Problem"
  readonly status: number
  readonly code: string
  readonly detail: string
  /** A 422's `errors: [{path, message}]` (docs/spec/profile.md section 7); `path` "" is the whole body. */
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>
  /** Seconds for a Retry-After header (a 503 whose cause may pass). */
  readonly retryAfter?: number
  /** More members of the problem document (e.g. a claim's `confirmations_missing`). */
  readonly members?: Readonly<Record<string, string | number | null>>
}

export const problemAnswer = (
  status: number,
  code: string,
  detail: string,
  errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>
): ProblemAnswer => ({ _tag: "Problem", status, code, detail, ...(errors === undefined ? {} : { errors }) })
