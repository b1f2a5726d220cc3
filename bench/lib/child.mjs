import { spawn } from 'node:child_process'

const MARK = '@@bench-result '

/** In a child: hand a JSON-serialisable result to the parent (one line on stdout). */
export function sendResult(value) {
  process.stdout.write(`${MARK}${JSON.stringify(value)}\n`)
}

/**
 * Run `node [flags] script [args]` and resolve with the value the child passed to sendResult(). The child's
 * stderr is passed through; it is killed after `timeoutMs`. Rejects when the child fails or sends nothing.
 */
export function runNode(script, args = [], { flags = [], timeoutMs = 120_000, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: env ?? process.env,
    })
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const line = out.split('\n').find((l) => l.startsWith(MARK))
      if (code !== 0 || !line) {
        const why = signal ? `killed by ${signal}` : `exit code ${code}`
        reject(
          new Error(`${script} ${args.join(' ')}: ${why}${line ? '' : ', no result'}\n${out.slice(-2000)}`),
        )
        return
      }
      resolve(JSON.parse(line.slice(MARK.length)))
    })
  })
}

/** Parse `--name value` and `--flag` arguments into an object. */
export function parseArgs(argv = process.argv.slice(2)) {
  const args = { _: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--')) {
      args._.push(a)
      continue
    }
    const eq = a.indexOf('=')
    if (eq > 0) args[a.slice(2, eq)] = a.slice(eq + 1)
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) args[a.slice(2)] = argv[++i]
    else args[a.slice(2)] = true
  }
  return args
}
