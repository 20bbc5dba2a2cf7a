// npm run client:generate [-- <base URL>]: rewrites the typed client's types from the service's
// OpenAPI documents, those of a running service when a base URL is given, else those of the app.
import { mkdir, writeFile } from 'node:fs/promises'
import { clientTypes, GENERATED_DIR, generatedFile } from './client-types.js'
import { GROUPS, servedDocuments, type Group } from './documents.js'

async function fetchedDocuments (baseUrl: string): Promise<Record<Group, Record<string, unknown>>> {
  const documents = {} as Record<Group, Record<string, unknown>>
  for (const group of GROUPS) {
    const response = await fetch(new URL(`/docs/${group}/openapi.json`, baseUrl))
    if (!response.ok) throw new Error(`${response.url} answered ${response.status}`)
    documents[group] = await response.json() as Record<string, unknown>
  }
  return documents
}

const baseUrl = process.argv[2]
const types = await clientTypes(baseUrl === undefined ? await servedDocuments() : await fetchedDocuments(baseUrl))
await mkdir(GENERATED_DIR, { recursive: true })
for (const group of GROUPS) await writeFile(generatedFile(group), types[group])
process.stdout.write(`wrote ${GROUPS.map(generatedFile).join(', ')}\n`)
