/** A progress bar on a terminal; a line per 10 % elsewhere (CI logs). */
export function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr): (done: number, total: number) => void {
  const started = Date.now();
  let lastDecile = -1;
  return (done, total) => {
    const ratio = total === 0 ? 1 : done / total;
    const elapsed = (Date.now() - started) / 1000;
    if (stream.isTTY) {
      const width = 30;
      const filled = Math.round(ratio * width);
      const rate = elapsed > 0 ? Math.round(done / elapsed) : 0;
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} (${rate.toLocaleString('en')}/s)`);
      if (done >= total) stream.write('\n');
      return;
    }
    const decile = Math.floor(ratio * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      stream.write(`${label}: ${decile * 10}% (${done.toLocaleString('en')}/${total.toLocaleString('en')}, ${elapsed.toFixed(1)} s)\n`);
    }
  };
}
