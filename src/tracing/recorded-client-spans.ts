import { trace } from '@opentelemetry/api'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis'

type Patch = (original: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown
type Wrap = (target: object, name: string, patch: Patch) => unknown

/**
 * A patch that runs the instrumentation's code only while a recorded span is active; otherwise the
 * original function runs alone. The instrumentations make a client span under any parent, recorded
 * or not; under an unsampled one (90% of requests at a 10% ratio) the parent-based sampler drops it
 * for certain, and pg's wrapper still builds its attributes, a span and four promises per query.
 */
function onlyUnderRecordedSpan (patch: Patch): Patch {
  return original => {
    const traced = patch(original)
    return function clientCall (this: unknown, ...args: unknown[]): unknown {
      return trace.getActiveSpan()?.isRecording() === true ? traced.apply(this, args) : original.apply(this, args)
    }
  }
}

function recordedOnlyWrap (wrap: Wrap): Wrap {
  return (target, name, patch) => wrap(target, name, onlyUnderRecordedSpan(patch))
}

// The instrumentations patch pg and ioredis when they are first imported, after construction, through
// the protected `_wrap`: each patch it applies is wrapped as above.

/** PostgreSQL client spans, made only for queries under a recorded span. */
export class RecordedPgInstrumentation extends PgInstrumentation {
  constructor (...args: ConstructorParameters<typeof PgInstrumentation>) {
    super(...args)
    this._wrap = recordedOnlyWrap(this._wrap as Wrap) as typeof this._wrap
  }
}

/** Redis client spans, made only for commands under a recorded span. */
export class RecordedIORedisInstrumentation extends IORedisInstrumentation {
  constructor (...args: ConstructorParameters<typeof IORedisInstrumentation>) {
    super(...args)
    this._wrap = recordedOnlyWrap(this._wrap as Wrap) as typeof this._wrap
  }
}
