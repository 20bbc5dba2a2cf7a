import neostandard from 'neostandard'

// Node.js runs the sources with its own type stripping: an import names the file that exists, and
// `import { type X }` would still load its module.
const relativeJsImport = {
  selector: ':matches(ImportDeclaration, ExportNamedDeclaration, ExportAllDeclaration, ImportExpression)[source.value=/^\\.\\.?\\x2F.*\\.js$/]',
  message: 'Name the .ts file: Node.js runs the sources as they are, and tsc rewrites the import for dist/.'
}

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'node_modules/**', '.data/**', '.tap/**', 'coverage/**', 'clients/typescript/src/generated/**', 'clients/typescript/dist/**', 'bench/results/**']
  }),
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-import-type-side-effects': 'error',
      'no-restricted-syntax': ['error', relativeJsImport]
    }
  },
  {
    // A problem's status, title, detail and headers are the catalogue's to decide: everyone else calls problem(code).
    files: ['src/**/*.ts', 'plugins/**/*.ts', 'routes/**/*.ts'],
    ignores: ['src/http/problems/error-catalogue.ts'],
    rules: {
      // A block's options for a rule replace an earlier block's, so the import rule is named again here.
      'no-restricted-syntax': ['error', relativeJsImport, {
        selector: "NewExpression[callee.name='Problem']",
        message: 'Make problems with problem(code) from src/http/problems/error-catalogue.ts.'
      }]
    }
  }
]
