// npm run client:generate [-- <base URL>]: rewrites the typed client's generated code from the
// service's OpenAPI documents, those of a running service when a base URL is given, else those of the
// app; one document per version of the version table, plus `ops`.
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { clientTypes, GENERATED_DIR, staleClientTypes } from './client-types.ts'
import { servedDocuments, tableGroups, type ServedDocuments } from './documents.ts'

async function fetchedDocuments (baseUrl: string): Promise<ServedDocuments> {
  const groups = tableGroups()
  const documents: ServedDocuments['documents'] = {}
  for (const group of groups) {
    const response = await fetch(new URL(`/docs/${group.name}/openapi.json`, baseUrl))
    if (!response.ok) throw new Error(`${response.url} answered ${response.status}`)
    documents[group.name] = await response.json() as Record<string, unknown>
  }
  return { groups, documents }
}

const baseUrl = process.argv[2]
const files = await clientTypes(baseUrl === undefined ? await servedDocuments() : await fetchedDocuments(baseUrl))
await mkdir(GENERATED_DIR, { recursive: true })
// A version taken out of the table takes its types with it.
for (const name of await staleClientTypes(files)) if (!(name in files)) await rm(join(GENERATED_DIR, name))
for (const [name, text] of Object.entries(files)) await writeFile(join(GENERATED_DIR, name), text)
process.stdout.write(`wrote ${Object.keys(files).map(name => join(GENERATED_DIR, name)).join(', ')}\n`)
