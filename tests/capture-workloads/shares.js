// shares.js SECONDS WORKERS TRUTH: hot() and warm() take about 70 % and
// 30 % of the CPU time of the main thread (WORKERS 0) or of WORKERS
// worker threads, until the process has used SECONDS of CPU time per
// thread (so a busy machine does not leave the workers with few
// samples); what each took is written to TRUTH as "truth hot S" and
// "truth warm S" (process.cpuUsage in the main thread; in workers, which
// have no CPU clock of their own in node 20, the time they ran: close to
// their CPU time on a machine that is not busy with other work; the
// kernel's schedstat is only brought up to date at ticks). The rounds
// vary at random, so that timer ticks do not keep meeting the loop at
// the same point.
'use strict';
const fs = require('fs');
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');

let sink = 0;
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * (i ^ sink)) % 1000003; sink ^= s; return s; }
function warm(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * (i ^ sink)) % 1000003; sink ^= s; return s; }

function cpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}


function wall() {
  return performance.now() / 1000;
}

function work(seconds, main) {
  const clock = main ? cpu : wall;
  let h = 0, w = 0;
  const end = cpu() + seconds;
  while (cpu() < end) {
    const n = 2000 + Math.floor(Math.random() * 4000);
    const t0 = clock();
    hot(7 * n);
    const t1 = clock();
    warm(3 * n);
    const t2 = clock();
    h += t1 - t0;
    w += t2 - t1;
  }
  return [h, w];
}

if (isMainThread) {
  const [seconds, workers, truth] = [parseFloat(process.argv[2]), parseInt(process.argv[3]), process.argv[4]];
  const write = (h, w) => fs.writeFileSync(truth, `truth hot ${h}\ntruth warm ${w}\n`);
  if (workers === 0) {
    write(...work(seconds, true));
  } else {
    let h = 0, w = 0, left = workers;
    for (let i = 0; i < workers; i++) {
      const t = new Worker(__filename, { workerData: seconds * workers });
      t.on('message', ([a, b]) => { h += a; w += b; if (--left === 0) write(h, w); });
    }
  }
} else {
  parentPort.postMessage(work(workerData, false));
}
