// The statements the service sends for each workload operation, copied from what it sent (run
// `npm run bench:workload`: it records them from the app, see bench/workload-statements.ts, and stops
// with both versions printed when these no longer match). The bare baseline runs them as named
// prepared statements, so the ratio compares everything but the SQL.

/** A statement the baseline prepares once per connection under its name. */
export interface Statement { name: string, text: string }

const CANDIDATO_COLUMNS = '"c"."id", "c"."nome", "c"."email", "c"."status", "c"."vaga_id", "c"."transferido_de", "c"."criado_em", "c"."atualizado_em", "c"."versao", ' +
  '"v"."titulo" as "vaga_titulo", "v"."status" as "vaga_status", "v"."versao" as "vaga_versao", "v"."atualizado_em" as "vaga_atualizado_em"'
const HISTORY = '(select coalesce(json_agg(agg), \'[]\') from (select "a"."acao", "a"."metodo", "a"."status_anterior", "a"."status_novo", "a"."vaga_anterior_id", "a"."vaga_id", "a"."ator", "a"."em" ' +
  'from "candidato_acoes" as "a" where "a"."candidato_id" = "c"."id" order by "a"."id") as agg) as "historico"'
const CANDIDATO_FROM = 'from "candidatos" as "c" left join "vagas" as "v" on "v"."id" = "c"."vaga_id"'
const DETAIL = `select ${CANDIDATO_COLUMNS}, ${HISTORY} ${CANDIDATO_FROM}`
const TOTAL = 'count(*) over () as "total"'
const VAGA_COLUMNS = '"id", "titulo", "descricao", "status", "criado_em", "atualizado_em", "versao"'
const NEWEST_FIRST = 'order by "c"."criado_em" desc, "c"."id" asc limit "p"."fetch"'

/** Pages go in batches: one row of arrays per page, unnested, each running the page's statement laterally. */
const batched = (arrays: Array<[string, string]>, page: string) =>
  `select "p"."i" as "batch_item", "x".* from unnest(${arrays.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) ` +
  `with ordinality as "p"(${arrays.map(([name]) => `"${name}"`).join(', ')}, "i") cross join lateral (${page}) as "x"`
const IN_VAGA_BY_STATUS = `${CANDIDATO_FROM} where "c"."status" = "p"."status" and "c"."vaga_id" = "p"."vagaId"`
const CANDIDATO_PAGE: Array<[string, string]> = [['status', 'text'], ['vagaId', 'uuid'], ['fetch', 'int8']]
const VAGAS_NEWEST_FIRST = 'from "vagas" order by "criado_em" desc, "id" asc limit "p"."fetch"'

export const SQL = {
  /** Reads: a batch of ids as one array parameter (the service batches; the baseline sends one id). */
  candidatosByIds: { name: 'candidatos-by-ids', text: `${DETAIL} where "c"."id" = any($1)` },
  /**
   * Pages: arrays of one element each (the service batches; the baseline sends one page): $1 status,
   * $2 vaga, $3 limit + 1 (the extra row says whether there is a next page), $4 offset; each row carries the total.
   */
  candidatosPageOffset: { name: 'candidatos-page-offset', text: batched([...CANDIDATO_PAGE, ['offset', 'int8']], `select ${CANDIDATO_COLUMNS}, ${TOTAL} ${IN_VAGA_BY_STATUS} ${NEWEST_FIRST} offset "p"."offset"`) },
  candidatosPage: { name: 'candidatos-page', text: batched(CANDIDATO_PAGE, `select ${CANDIDATO_COLUMNS} ${IN_VAGA_BY_STATUS} ${NEWEST_FIRST}`) },
  vagaExists: { name: 'vaga-exists', text: 'select "id" from "vagas" where "id" = $1' },
  /** $1 limit + 1, $2 offset, arrays of one element; each row carries the total. */
  vagasPageOffset: { name: 'vagas-page-offset', text: batched([['fetch', 'int8'], ['offset', 'int8']], `select ${VAGA_COLUMNS}, ${TOTAL} ${VAGAS_NEWEST_FIRST} offset "p"."offset"`) },
  vagasPage: { name: 'vagas-page', text: batched([['fetch', 'int8']], `select ${VAGA_COLUMNS} ${VAGAS_NEWEST_FIRST}`) },
  /** Creates: arrays of names and addresses (the service batches; the baseline sends one of each). */
  candidatoInsert: { name: 'candidato-insert', text: 'insert into candidatos (nome, email, email_chave, status) select nome, email, email_chave, \'cadastrado\' from unnest($1::text[], $2::text[], $3::text[]) as p(nome, email, email_chave) order by email_chave returning "id", "nome", "email", "status", "vaga_id", "transferido_de", "criado_em", "atualizado_em", "versao"' },
  /**
   * The events of a transaction, its last statement: $1 types, $2 actors,
   * $3 subject kinds, $4 subject ids, $5 the subjects' records as JSON.
   */
  eventInsert: {
    name: 'event-insert',
    text: `insert into eventos (tipo, ator, sujeito_tipo, sujeito_id, dados)
    select tipo, ator, sujeito_tipo, sujeito_id, dados::jsonb
    from unnest($1::text[], $2::text[], $3::text[],
      $4::uuid[], $5::text[])
      with ordinality as e(tipo, ator, sujeito_tipo, sujeito_id, dados, n)
    order by n`
  },
  begin: { name: '', text: 'begin' },
  commit: { name: '', text: 'commit' },
  /** Actions: arrays of ids, in one transaction (the service batches; the baseline sends one action). */
  candidatoLock: { name: 'candidato-lock', text: `${DETAIL} where c.id = any($1::uuid[]) order by "c"."id" for update of "c"` },
  vagaShare: { name: 'vaga-share', text: 'select "id", "titulo", "status", "versao", "atualizado_em" from "vagas" where id = any($1::uuid[]) order by "id" for share' },
  /**
   * The changes and their history entries in one statement, returning what they wrote, per element of
   * the arrays: $1 id, $2 status, $3 vaga, $4 transferido_de, $5 the status read under lock, $6 acao,
   * $7 metodo, $8 the vaga before, $9 ator.
   */
  candidatoMove: {
    name: 'candidato-move',
    text: 'with input as (select * from unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::text[]) as i(id, status, vaga_id, transferido_de, status_anterior, acao, metodo, vaga_anterior_id, ator)), ' +
      'moved as (update candidatos c set status = i.status, vaga_id = i.vaga_id, transferido_de = i.transferido_de, atualizado_em = now(), versao = c.versao + 1 from input i where c.id = i.id and c.status = i.status_anterior returning c.id, c.atualizado_em, c.versao), ' +
      'acao as (insert into candidato_acoes (candidato_id, acao, metodo, status_anterior, status_novo, vaga_anterior_id, vaga_id, ator) select id, acao, metodo, status_anterior, status, vaga_anterior_id, vaga_id, ator from input returning candidato_id, em) ' +
      'select moved.id, moved.atualizado_em, moved.versao, acao.em from moved join acao on acao.candidato_id = moved.id'
  }
} satisfies Record<string, Statement>

const move = (...vagas: Statement[]) => [SQL.begin, ...vagas, SQL.candidatoLock, SQL.candidatoMove, SQL.eventInsert, SQL.commit]

/** Per operation, the statements one request sends (in any order where a request sends them concurrently). */
export const BASELINE_STATEMENTS = {
  ping: [],
  'candidato-read-v1': [SQL.candidatosByIds],
  'candidato-read-v2': [SQL.candidatosByIds],
  'candidatos-list-v1': [SQL.candidatosPageOffset],
  'candidatos-list-v2': [SQL.candidatosPage],
  // The vaga's existence is asked only when its page is empty.
  'vaga-candidatos-v1': [SQL.candidatosPageOffset],
  'vaga-candidatos-v2': [SQL.candidatosPage],
  'vagas-list-v1': [SQL.vagasPageOffset],
  'vagas-list-v2': [SQL.vagasPage],
  'candidato-create': [SQL.begin, SQL.candidatoInsert, SQL.eventInsert, SQL.commit],
  candidatar: move(SQL.vagaShare),
  aprovar: move(),
  'aprovar-cancel': move()
} satisfies Record<string, Statement[]>
