// The operations `npm run bench:workload` measures, as request generators: each request picks its
// own random ids and filters. The load process (bench/workload-load.ts) sends them with autocannon,
// and the check of the same-JSON app (bench/workload-equality.ts) sends a sample of each to both servers.

/** The ids a request may pick from; written once per run to a JSON file the load process reads. */
export interface WorkloadData {
  vagas: string[]
  /** A random sample of every candidato, for reads. */
  candidatos: string[]
  /** `cadastrado` candidatos that candidatar moves into a vaga; reset before every load run. */
  cadastrados: string[]
  /** `inscrito` candidatos that aprovar approves (and its cancellation puts back); reset before every load run. */
  inscritos: string[]
}

export interface WorkloadRequest {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  body?: string
}

/**
 * What the requests of one load process share: the data, counters that hand every pool member out
 * once (so each write finds its candidato in the state it needs), and a tag for unique addresses.
 */
export interface Picker {
  data: WorkloadData
  next: { cadastrado: number, inscrito: number, email: number }
  tag: string
}

export function createPicker (data: WorkloadData, tag: string): Picker {
  return { data, next: { cadastrado: 0, inscrito: 0, email: 0 }, tag }
}

function random<T> (items: T[]): T {
  if (items.length === 0) throw new Error('the workload data holds no ids to pick from')
  return items[Math.floor(Math.random() * items.length)] as T
}

/** The next member of a pool; past its end the pool starts again, and the answers say so (409). */
function nextOf (picker: Picker, pool: 'cadastrado' | 'inscrito'): string {
  const members = pool === 'cadastrado' ? picker.data.cadastrados : picker.data.inscritos
  const id = members[picker.next[pool] % members.length]
  picker.next[pool]++
  if (id === undefined) throw new Error(`the workload data holds no ${pool} candidatos`)
  return id
}

const LIST_FILTER = 'status=inscrito&sort=-criadoEm&limit=20'

/** One request of each single operation. Every expected answer is a 2xx. */
export const single = {
  ping: () => ({ method: 'GET', path: '/ping' }),
  'candidato-read-v1': (p: Picker) => ({ method: 'GET', path: `/api/v1/candidatos/${random(p.data.candidatos)}` }),
  'candidato-read-v2': (p: Picker) => ({ method: 'GET', path: `/api/v2/candidatos/${random(p.data.candidatos)}` }),
  'candidatos-list-v1': (p: Picker) => ({ method: 'GET', path: `/api/v1/candidatos?${LIST_FILTER}&vagaId=${random(p.data.vagas)}` }),
  'candidatos-list-v2': (p: Picker) => ({ method: 'GET', path: `/api/v2/candidatos?${LIST_FILTER}&vagaId=${random(p.data.vagas)}` }),
  'vaga-candidatos-v1': (p: Picker) => ({ method: 'GET', path: `/api/v1/vagas/${random(p.data.vagas)}/candidatos?${LIST_FILTER}` }),
  'vaga-candidatos-v2': (p: Picker) => ({ method: 'GET', path: `/api/v2/vagas/${random(p.data.vagas)}/candidatos?${LIST_FILTER}` }),
  'vagas-list-v1': () => ({ method: 'GET', path: '/api/v1/vagas?limit=20' }),
  'vagas-list-v2': () => ({ method: 'GET', path: '/api/v2/vagas?limit=20' }),
  'candidato-create': (p: Picker) => {
    const n = p.next.email++
    return { method: 'POST', path: '/api/v1/candidatos', body: JSON.stringify({ nome: `Carga ${n}`, email: `carga-${p.tag}-${n}@example.com` }) }
  },
  candidatar: (p: Picker) => ({
    method: 'POST',
    path: `/api/v1/candidatos/${nextOf(p, 'cadastrado')}/candidatar`,
    body: JSON.stringify({ vagaId: random(p.data.vagas) })
  }),
  aprovar: (p: Picker) => ({ method: 'POST', path: `/api/v1/candidatos/${nextOf(p, 'inscrito')}/aprovar` }),
  // Only after aprovar on the same candidato (see sequences).
  'aprovar-cancel': (_p: Picker, id: string) => ({ method: 'DELETE', path: `/api/v1/candidatos/${id}/aprovar` })
} satisfies Record<string, (picker: Picker, id: string) => WorkloadRequest>

export type SingleName = keyof typeof single

/** The mixed scenario: reads 70 %, lists 20 %, writes and actions 10 %, each picked per request. */
export const MIX: Array<[SingleName, number]> = [
  ['candidato-read-v1', 35], ['candidato-read-v2', 35],
  ['candidatos-list-v1', 5], ['candidatos-list-v2', 5], ['vaga-candidatos-v1', 3], ['vaga-candidatos-v2', 3], ['vagas-list-v1', 2], ['vagas-list-v2', 2],
  ['candidato-create', 4], ['candidatar', 3], ['aprovar', 3]
]

function mixed (picker: Picker): WorkloadRequest {
  let roll = Math.random() * 100
  for (const [name, weight] of MIX) {
    roll -= weight
    if (roll < 0) return single[name](picker, '')
  }
  return single['candidato-read-v1'](picker)
}

/**
 * What each connection sends, in order and then again: most operations are one request; `aprovar`
 * approves a candidato and then cancels the approval, so its pool never runs dry.
 */
export type Sequence = Array<(picker: Picker, context: { id?: string }) => WorkloadRequest>

const approveThenCancel: Sequence = [
  (picker, context) => {
    const request = single.aprovar(picker)
    context.id = request.path.split('/')[4]
    return request
  },
  (picker, context) => single['aprovar-cancel'](picker, context.id ?? '')
]

export const OPERATIONS = {
  ping: [single.ping],
  'candidato-read-v1': [single['candidato-read-v1']],
  'candidato-read-v2': [single['candidato-read-v2']],
  'candidatos-list-v1': [single['candidatos-list-v1']],
  'candidatos-list-v2': [single['candidatos-list-v2']],
  'vaga-candidatos-v1': [single['vaga-candidatos-v1']],
  'vaga-candidatos-v2': [single['vaga-candidatos-v2']],
  'vagas-list-v1': [single['vagas-list-v1']],
  'vagas-list-v2': [single['vagas-list-v2']],
  'candidato-create': [single['candidato-create']],
  candidatar: [single.candidatar],
  'aprovar+cancel': approveThenCancel,
  mixed: [mixed]
} satisfies Record<string, Sequence>

export type OperationName = keyof typeof OPERATIONS
