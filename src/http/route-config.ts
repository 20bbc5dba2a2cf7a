// What a route may declare in its `config`, read by the shared plugins (and the OpenAPI documents).
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answers may be stored by caches; by default they may not. */
    cacheable?: boolean
    /** Scopes a bearer token must carry (all of them). Declaring any makes the route protected. */
    scopes?: readonly string[]
    /** Anyone may call the route without a token; a route declaring neither this nor scopes requires a token. */
    public?: true
    /** `optional`: a token is verified when one is sent, and the route also answers without one. */
    auth?: 'optional'
    /**
     * The route answers from memory and waits on nothing, so it gets no HANDLER_TIMEOUT timer: that
     * timer (an AbortController, a timeout and a close listener per request) costs more than such a
     * route's own work (docs/benchmarks.md).
     */
    instant?: boolean
    /** Polled by balancers and orchestrators (/ping, the health probes): no trace spans unless TRACE_PROBES. */
    probe?: boolean
    /** The route needs the database: it answers 503 `DatabaseUnavailable` while the database is down. */
    database?: true
  }
}

export {}
