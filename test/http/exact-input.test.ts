import t from 'tap'
import { bearer, build } from '../helper.js'

const ALL = 'vagas:read vagas:write candidatos:read candidatos:write'

async function ready (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const app = await build(t, { env })
  await app.storage.whenReady()
  return { app, auth: await bearer({ scope: ALL, sub: 'recrutadora-1' }) }
}

t.test('a JSON body with invalid UTF-8 or a lone surrogate answers 400 problem and stores nothing', async t => {
  const { app, auth } = await ready(t)
  const bodies: Array<[string, Buffer, string]> = [
    ['invalid UTF-8 byte', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xff]), Buffer.from('"}')]), 'application/json'],
    ['truncated UTF-8 sequence', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xc3]), Buffer.from('"}')]), 'application/json'],
    ['encoded surrogate', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), 'application/json'],
    ['lone surrogate escape', Buffer.from('{"titulo":"Dev \\ud800"}'), 'application/json'],
    ['lone low surrogate escape', Buffer.from('{"titulo":"Dev \\uDC00 x"}'), 'application/json'],
    ['lone surrogate in a key', Buffer.from('{"titulo":"Dev","\\ud800":1}'), 'application/json'],
    ['vendor media type', Buffer.concat([Buffer.from('{"titulo":"Dev'), Buffer.from([0xff]), Buffer.from('"}')]), 'application/vnd.recrutamento-v1+json']
  ]
  for (const [name, payload, type] of bodies) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': type }, payload })
    t.equal(res.statusCode, 400, name)
    t.match(res.headers['content-type'], /^application\/problem\+json/, name)
    t.match(res.json(), { status: 400, code: 'InvalidJson', instance: '/api/v1/vagas' }, name)
  }
  t.equal((await app.inject({ url: '/api/v1/vagas', headers: auth })).json().total, 0, 'nothing was stored')
  const pair = await app.inject({ method: 'POST', url: '/api/v1/vagas', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"titulo":"Dev \\ud83d\\ude00 é"}' })
  t.equal(pair.statusCode, 201, 'a surrogate pair and plain UTF-8 pass')
  t.equal(pair.json().titulo, 'Dev 😀 é', 'stored exactly')
})
