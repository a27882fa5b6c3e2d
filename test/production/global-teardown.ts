import fs from 'node:fs';
import { gate } from './global-setup';

/** `gate stack down`, then the receiver and the data dir go (GATE_KEEP_PROD_DATA=1 keeps the dir and its logs). */
export default async function globalTeardown(): Promise<void> {
  const prod = globalThis.__GATE_PROD__;
  if (!prod) return;
  try {
    await gate(['stack', 'down'], { ...process.env, ...prod.env }, 120_000);
  } finally {
    prod.receiver.closeAllConnections();
    await new Promise<void>((resolve) => prod.receiver.close(() => resolve()));
    if (process.env.GATE_KEEP_PROD_DATA !== '1') fs.rmSync(prod.dir, { recursive: true, force: true });
  }
}
