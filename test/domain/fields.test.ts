import t from 'tap'
import { candidatoIssues, emailKey, isEmail, EMAIL_MAX_LENGTH } from '../../src/domain/candidato.ts'
import { acceptsCandidatos, vagaDefaults, vagaIssues, TITULO_MAX_LENGTH } from '../../src/domain/vaga.ts'

t.test('vaga fields', async t => {
  t.same(vagaIssues({ titulo: 'Desenvolvedora backend', descricao: null, status: 'aberta' }), [])
  t.same(vagaIssues({ titulo: '   ' }), [{ field: '/titulo', message: 'must contain a non-blank character' }])
  t.same(vagaIssues({ titulo: 'x'.repeat(TITULO_MAX_LENGTH) }), [], '200 characters fit')
  t.match(vagaIssues({ titulo: 'x'.repeat(TITULO_MAX_LENGTH + 1) }), [{ field: '/titulo' }], '201 do not')
  t.same(vagaIssues({ titulo: '😀'.repeat(TITULO_MAX_LENGTH) }), [], 'characters are counted, not UTF-16 units')
  t.same(vagaDefaults({ titulo: 'T' }), { titulo: 'T', descricao: null, status: 'aberta' }, 'a new vaga is open')
  t.equal(acceptsCandidatos({ status: 'aberta' }), true)
  t.equal(acceptsCandidatos({ status: 'fechada' }), false)
})

t.test('candidato fields', async t => {
  t.same(candidatoIssues({ nome: 'Ana', email: 'ana@example.com' }), [])
  t.match(candidatoIssues({ nome: ' ', email: 'ana' }), [{ field: '/nome' }, { field: '/email' }])
  for (const bad of ['ana', 'ana@', '@example.com', 'ana@example', 'a na@example.com', 'ana@@example.com', 'ana@example..com', "x'@a.b;--", 'a\u0000b@example.com', 'ab@exa\u0000mple.com']) {
    t.equal(isEmail(bad), false, `${bad} is not an address`)
  }
  for (const good of ['ana@example.com', 'Ana.Silva+vagas@sub.example.com.br', "o'neil@example.org"]) {
    t.equal(isEmail(good), true, `${good} is an address`)
  }
  t.equal(isEmail(`${'a'.repeat(EMAIL_MAX_LENGTH)}@example.com`), false, 'too long')
  for (const invisible of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u180e']) {
    t.equal(isEmail(`an${invisible}a@example.com`), false, `U+${invisible.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} renders as nothing: refused`)
  }
  t.equal(isEmail('josé@exemplo.com.br'), true, 'letters outside ASCII are fine')
  t.equal(emailKey('Ana@Example.COM'), 'ana@example.com')
  t.equal(emailKey('JOSE\u0301@x.com'), emailKey('jos\u00e9@x.com'), 'composed and decomposed accents')
  t.equal(emailKey('\uff21\uff4e\uff41@x.com'), 'ana@x.com', 'fullwidth letters')
  t.equal(emailKey('\u0130@x.com'), emailKey('i\u0307@x.com'), 'a lower case that needs normalizing again')
})
