// The Kubernetes manifests and the service agree: each Deployment runs a role, its probes ask paths
// that role serves and that answer 200 once it is ready, and the API's Service and autoscaler select
// the API pods alone, never the delivery workers.
import t from 'tap'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { build } from '../helper.ts'
import { eventually } from '../support/eventually.ts'
import { freshPostgresDatabase } from '../support/services.ts'

const dir = join(import.meta.dirname, '../../deploy/k8s')

interface Probe { httpGet: { path: string, port: string } }
interface Container {
  ports: Array<{ name: string, containerPort: number }>
  env?: Array<{ name: string, value: string }>
  startupProbe: Probe
  livenessProbe: Probe
  readinessProbe: Probe
}
interface Manifest {
  kind: string
  metadata: { name: string }
  spec: {
    selector: { matchLabels?: Record<string, string> } & Record<string, string>
    scaleTargetRef?: { kind: string, name: string }
    template: { metadata: { labels: Record<string, string>, annotations?: Record<string, string> }, spec: { containers: Container[] } }
  }
}

/** Every object `kubectl apply -k deploy/k8s` applies. */
const manifests: Manifest[] = (parseAllDocuments(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'))[0]!.toJS() as { resources: string[] }).resources
  .flatMap(file => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map(document => document.toJS() as Manifest))
const deployments = manifests.filter(manifest => manifest.kind === 'Deployment')
const roleOf = (deployment: Manifest): string | undefined => deployment.spec.template.spec.containers[0]!.env?.find(variable => variable.name === 'SERVICE_ROLE')?.value
const one = (kind: string): Manifest => manifests.find(manifest => manifest.kind === kind)!
const selects = (selector: Record<string, string>, deployment: Manifest): boolean =>
  Object.entries(selector).every(([label, value]) => deployment.spec.template.metadata.labels[label] === value)

t.test('an API Deployment and a worker Deployment, each naming its role', async t => {
  t.same(deployments.map(roleOf).sort(), ['api', 'worker'])
})

for (const deployment of deployments) {
  const role = roleOf(deployment)!
  t.test(`${deployment.metadata.name}: its probes ask paths its role (${role}) serves, on a port it declares`, async t => {
    const [container] = deployment.spec.template.spec.containers
    const ports = container!.ports.map(port => port.name)
    const annotations = deployment.spec.template.metadata.annotations ?? {}
    if (annotations['prometheus.io/scrape'] === 'true') {
      t.ok(container!.ports.some(port => String(port.containerPort) === annotations['prometheus.io/port']), 'the scraped port is declared')
    }
    // API and worker processes share a PostgreSQL database (the embedded one runs only SERVICE_ROLE=all).
    const databaseUrl = await freshPostgresDatabase(t)
    if (databaseUrl === undefined) return
    const app = await build(t, { env: { SERVICE_ROLE: role, DATABASE_URL: databaseUrl, HEALTH_REFRESH_INTERVAL_MS: '200', WEBHOOK_DISPATCH_INTERVAL_MS: '100' } })
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
      const { path, port } = container![probe].httpGet
      t.ok(ports.includes(port), `${probe} names the declared port ${port}`)
      await eventually(async () => {
        const answer = await app.inject(path)
        assert.equal(answer.statusCode, 200, `${probe} ${path}: ${answer.statusCode} ${answer.body}`)
      }, { timeout: 60_000, interval: 100 })
      t.pass(`${probe} ${path} answers 200 once ready`)
    }
  })
}

t.test('the Service, the autoscaler and the disruption budget take the API pods, never the workers', async t => {
  const api = deployments.find(deployment => roleOf(deployment) === 'api')!
  const worker = deployments.find(deployment => roleOf(deployment) === 'worker')!
  const service = one('Service').spec.selector
  t.ok(selects(service, api), 'the Service routes to the API pods')
  t.notOk(selects(service, worker), 'and not to the workers')
  const budget = one('PodDisruptionBudget').spec.selector.matchLabels!
  t.ok(selects(budget, api) && !selects(budget, worker), 'the disruption budget counts API pods only')
  t.same(one('HorizontalPodAutoscaler').spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: api.metadata.name })
  t.notOk(selects(api.spec.selector.matchLabels!, worker), 'the API Deployment\'s selector does not take worker pods')
})
