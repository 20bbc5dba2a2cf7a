// The requests `npm run bench` measures, as data. Each one is sent, with the same settings, to the
// built service and to the bare Fastify baseline (bench/baseline.ts), which answers `pong` to any
// request. To measure a new route, add an entry here.

/** What a scenario's setup step may change in the request, once the service is up. */
export interface PreparedRequest {
  path?: string
  headers?: Record<string, string>
  body?: string
}

export interface SetupContext {
  /** Where the service under test listens, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string
  /** The environment the service was started with (the defaults plus the scenario's `env`). */
  env: Readonly<Record<string, string>>
  /** Polls `path` on the service until it answers `status` (default 200), or fails after `timeoutMs`. */
  waitFor: (path: string, status?: number, timeoutMs?: number) => Promise<void>
}

export interface Scenario {
  name: string
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'
  path: string
  headers?: Record<string, string>
  body?: string
  /** The status the service must answer; other answers are counted and reported as errors. */
  expectStatus?: number
  /** Settings the service needs for this scenario, on top of the bench defaults. */
  env?: Record<string, string>
  /** Runs once against the started service before the load: mint a token, create a record, ... */
  setup?: (context: SetupContext) => Promise<PreparedRequest | undefined>
}

// A protected route, for example, is one more entry:
//   {
//     name: 'vagas-list', method: 'GET', path: '/api/vagas',
//     env: { AUTH_JWT_SECRET: 'bench-secret-of-at-least-32-characters' },
//     setup: async ({ env, waitFor }) => {
//       await waitFor('/health/ready')
//       return { headers: { authorization: `Bearer ${await mintToken(env.AUTH_JWT_SECRET, ['vagas:read'])}` } }
//     }
//   }
export const scenarios: Scenario[] = [
  { name: 'ping', method: 'GET', path: '/ping' }
]
