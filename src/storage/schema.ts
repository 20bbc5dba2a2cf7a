// The tables as Kysely sees them; each migration that adds a table adds its interface here.

export interface Schema {}
