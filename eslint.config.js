import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'node_modules/**', '.data/**', '.tap/**', 'coverage/**', 'clients/typescript/src/generated/**', 'clients/typescript/dist/**', 'bench/results/**']
  }),
  {
    // A problem's status, title, detail and headers are the catalogue's to decide: everyone else calls problem(code).
    files: ['src/**/*.ts', 'plugins/**/*.ts', 'routes/**/*.ts'],
    ignores: ['src/http/problems/error-catalogue.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "NewExpression[callee.name='Problem']",
        message: 'Make problems with problem(code) from src/http/problems/error-catalogue.ts.'
      }]
    }
  }
]
