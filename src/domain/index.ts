export * from './vaga.js'
export * from './candidato.js'
export * from './candidato-actions.js'
