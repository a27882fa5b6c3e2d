const g = global as any;
const base = () => { g.gc(); return process.memoryUsage().heapUsed; };
const h0 = base(); const t0 = performance.now();
require('zod');
const h1 = base(); const t1 = performance.now();
for (const m of ['decision','evidence','gate-state','interaction','conversation','tool-result','audit','trip-policy','lifecycle','secrets','snapshot','failure-types','gate-memo']) require('/work/main/src/core/' + m);
const h2 = base(); const t2 = performance.now();
console.log(`zod ${((h1-h0)/1e3)|0} KB ${(t1-t0).toFixed(1)} ms; core ${((h2-h1)/1e3)|0} KB ${(t2-t1).toFixed(1)} ms`);
