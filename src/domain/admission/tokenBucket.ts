// A token bucket (docs/protocol.md "Fair admission", "Fair admission"): `capacity` tokens that
// refill continuously at `capacity` per `windowSeconds`, so a budget of 60 a minute allows
// a burst of 60 and then one a second. Pure: the time comes in as an argument (Unix ms,
// from the Clock port), and a bucket is a plain value the app keeps.
//
// A bucket that has refilled to capacity is the same as no bucket at all (`isFull`), so
// the app may forget it: memory holds only the subjects that spent something recently.

export interface BucketRule {
  /** Tokens when full: the burst, and what refills in one window. */
  readonly capacity: number
  readonly windowSeconds: number
}

export interface Bucket {
  /** Tokens left at `at` (fractional while refilling). */
  readonly tokens: number
  /** Unix ms of the reading. */
  readonly at: number
}

export interface Taken {
  readonly admitted: boolean
  /** The bucket after (unchanged but for the refill when refused). */
  readonly bucket: Bucket
  /** Whole tokens left: the RateLimit header's `r`. */
  readonly remaining: number
  /** Seconds until the bucket is full again: the RateLimit header's `t`. */
  readonly resetSeconds: number
  /** Seconds until `cost` tokens are there again (0 when admitted): Retry-After. */
  readonly retryAfterSeconds: number
}

const refillRate = (rule: BucketRule): number => rule.capacity / (rule.windowSeconds * 1000)

/** The bucket at `now`: what it held plus what refilled since, never above capacity. */
export const refilled = (bucket: Bucket | undefined, rule: BucketRule, now: number): Bucket => {
  if (bucket === undefined) return { tokens: rule.capacity, at: now }
  const elapsed = Math.max(0, now - bucket.at)
  return { tokens: Math.min(rule.capacity, bucket.tokens + elapsed * refillRate(rule)), at: Math.max(now, bucket.at) }
}

/** Whether the bucket is full at `now` (so it may be forgotten). */
export const isFull = (bucket: Bucket, rule: BucketRule, now: number): boolean => refilled(bucket, rule, now).tokens >= rule.capacity

const secondsFor = (missing: number, rule: BucketRule): number => missing <= 0 ? 0 : Math.ceil(missing / refillRate(rule) / 1000)

/** Takes `cost` tokens if the bucket holds them at `now`; otherwise takes nothing. */
export const take = (bucket: Bucket | undefined, rule: BucketRule, now: number, cost = 1): Taken => {
  const current = refilled(bucket, rule, now)
  const admitted = current.tokens >= cost
  const after = admitted ? { tokens: current.tokens - cost, at: current.at } : current
  return {
    admitted,
    bucket: after,
    remaining: Math.floor(after.tokens),
    resetSeconds: secondsFor(rule.capacity - after.tokens, rule),
    // At least a second: a Retry-After of 0 invites an immediate retry that is refused again.
    retryAfterSeconds: admitted ? 0 : Math.max(1, secondsFor(cost - current.tokens, rule))
  }
}
