/** Answers that no cache may keep: every answer unless its route is marked cacheable. */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  pragma: 'no-cache',
  expires: '0'
})
