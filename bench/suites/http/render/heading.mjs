/** The section's title and what was measured: when, on what, with which build. */
export function headingLines(meta) {
  const b = meta.floodgate
  return [
    `## HTTP servers${meta.quick ? ' (QUICK SMOKE RUN: numbers not representative)' : ''}`,
    '',
    `Measured ${meta.date} on Node ${meta.node} (V8 ${meta.v8}), ${meta.cpu} x ${meta.cores}, ` +
      `load average ${meta.loadavg.join(' / ')} at the start and ${meta.loadavgEnd.join(' / ')} at the end ` +
      '(1 / 5 / 15 min; other work was running on the machine, and the load generator shares the 2 cores ' +
      `with the server). Suite: \`${meta.command}\` (${Math.round(meta.elapsedMs / 1000)} s).`,
    '',
    `Floodgate measured: ${b.package} ${b.version}, built ${b.builtAt} (\`${b.entry}\` sha256 ${b.sha256}) ` +
      `at commit ${b.commit}${b.sourcesModified ? ' with uncommitted changes to its sources' : ''}; adapters ` +
      `${meta.adapters.map((a) => `${a.package} (${a.sha256 ?? a.error})`).join(', ')}.` +
      `${meta.rebuiltDuringRun ? ' **WARNING: a package was rebuilt during the run; numbers mix two builds.**' : ''}`,
    '',
  ]
}
