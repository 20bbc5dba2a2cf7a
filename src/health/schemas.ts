import { Type } from '@sinclair/typebox'
import { HEALTH_STATUSES } from './status.ts'

// Response shapes of the health endpoints (docs/operations.md, "Health and status"), shared by the route files.

export const HealthStatusSchema = Type.Union(HEALTH_STATUSES.map(status => Type.Literal(status)), {
  description: 'Healthy and Degraded answer 200; every other status answers 503'
})

export const StatusOnly = Type.Object({ status: HealthStatusSchema }, { additionalProperties: false })

export const StatusWithChecks = Type.Object({
  status: HealthStatusSchema,
  checks: Type.Record(Type.String(), HealthStatusSchema, { description: 'Each check by name with its own status' })
}, { additionalProperties: false })

export const DependencyResult = Type.Object({
  name: Type.String(),
  status: HealthStatusSchema,
  latencyMs: Type.Number({ description: 'How long the check took, in milliseconds' }),
  ageMs: Type.Integer({ description: 'How old the result is, in milliseconds (results are cached briefly)' })
}, { additionalProperties: false })

export const DetailValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()])

export const DeepCheck = Type.Object({
  status: HealthStatusSchema,
  latencyMs: Type.Number(),
  ageMs: Type.Integer(),
  critical: Type.Boolean({ description: 'A failing non-critical check degrades the service instead of failing it' }),
  details: Type.Optional(Type.Record(Type.String(), DetailValue))
}, { additionalProperties: false })

export const DeepResult = Type.Object({
  status: HealthStatusSchema,
  checks: Type.Record(Type.String(), DeepCheck)
}, { additionalProperties: false })

export const DependenciesResult = Type.Object({
  status: HealthStatusSchema,
  dependencies: Type.Array(DependencyResult)
}, { additionalProperties: false })

/** Route options every public probe shares: the probe policy (src/http/policy/route-policy.ts), no token. */
export const PROBE_ROUTE = {
  config: { public: true, probe: true }
} as const
