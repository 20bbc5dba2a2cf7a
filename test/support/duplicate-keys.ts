/**
 * The keys that appear twice in one object of a JSON text, at any depth (`JSON.parse` keeps the last
 * of them without a word). The text must be valid JSON.
 */
export function duplicateKeys (json: string): string[] {
  const duplicates: string[] = []
  // One set of keys per open object; arrays push null so that closing brackets pair up.
  const open: Array<Set<string> | null> = []
  let expectingKey = false
  for (let i = 0; i < json.length; i++) {
    const char = json[i]
    if (char === '"') {
      let end = i + 1
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1
      const keys = open[open.length - 1]
      if (expectingKey && keys !== undefined && keys !== null) {
        const key = JSON.parse(json.slice(i, end + 1)) as string
        if (keys.has(key)) duplicates.push(key)
        keys.add(key)
      }
      expectingKey = false
      i = end
    } else if (char === '{') {
      open.push(new Set())
      expectingKey = true
    } else if (char === '[') {
      open.push(null)
    } else if (char === '}' || char === ']') {
      open.pop()
    } else if (char === ',') {
      expectingKey = open[open.length - 1] instanceof Set
    }
  }
  return duplicates
}
