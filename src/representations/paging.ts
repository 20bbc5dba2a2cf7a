/** How a version pages its collections: by `offset` (and reports the total), or by an opaque `cursor`. */
export type Paging = 'offset' | 'cursor'

/** An item's representation: an object with the item schema's fields. */
export type ItemRepresentation<T> = (item: T, href: (path: string) => string) => unknown
