// A hostile client, run as a process of its own: it POSTs a large, deeply nested JSON body with a
// forged bearer token at a steady pace, prints each answer's status (or "error") on a line, and
// stops by itself. Arguments: url, requests per second, seconds.
const [url, perSecond, seconds] = process.argv.slice(2).map((value, i) => i === 0 ? value : Number(value))
const body = '['.repeat(500_000) + ']'.repeat(500_000)
const end = Date.now() + seconds * 1000
while (Date.now() < end) {
  const started = Date.now()
  try {
    const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer not.a.token', 'content-type': 'application/json' }, body })
    await res.arrayBuffer()
    process.stdout.write(`${res.status}\n`)
  } catch {
    process.stdout.write('error\n')
  }
  const pause = 1000 / perSecond - (Date.now() - started)
  if (pause > 0) await new Promise(resolve => setTimeout(resolve, pause))
}
